/**
 * `npm start`: the whole product on one machine with no Azure account. Starts Azurite (blob storage,
 * from node_modules) and the Event Hubs emulator on loopback, a generator that sends realistic Azure
 * resource logs through the real SDK producer, and the collector on config/local.yaml, which prints the
 * decoded records. Every few seconds a status line shows events/s, partitions owned and lag.
 * Ctrl-C stops everything cleanly. Options: --duration SECONDS (stop by itself), --rate EVENTS_PER_S.
 */
import { parseArgs } from 'node:util';
import { EventHubProducerClient } from '@azure/event-hubs';
import { startEmulator } from '../src/emulator/index.ts';
import { SAMPLE_CATEGORIES, sampleResourceLogBody } from '../src/decode/samples.ts';
import { builtinComponents } from '../src/distribution/builtin-components.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { resolveConfig } from '../src/distribution/resolve-config.ts';
import { Service } from '../src/distribution/service.ts';
import { createJsonLogger } from '../src/telemetry/json-logger.ts';
import type { AzureEventHubReceiver } from '../src/receiver/receiver.ts';
import { startAzurite } from './local/azurite.ts';

const HUB = 'resource-logs';
const PARTITIONS = 4;
const STATUS_INTERVAL_MS = 5_000;

const { values } = parseArgs({
  options: {
    duration: { type: 'string' },
    rate: { type: 'string', default: '4' },
    config: { type: 'string', default: 'config/local.yaml' },
  },
});
const say = (text: string) => process.stderr.write(`\x1b[36m[local]\x1b[0m ${text}\n`);

say('starting Azurite (blob storage) and the Event Hubs emulator on 127.0.0.1 ...');
const azurite = await startAzurite();
const emulator = await startEmulator({ host: '127.0.0.1', port: 0, hubs: [{ name: HUB, partitions: PARTITIONS }] });
say(`emulator: ${emulator.connectionString(HUB).replace(/SharedAccessKey=[^;]+/, 'SharedAccessKey=***')}`);
say(`azurite:  blob endpoint ${azurite.blobEndpoint}`);

// The generator: realistic Azure diagnostic-settings bodies ({"records": [...]}) across categories.
const producer = new EventHubProducerClient(emulator.connectionString(HUB));
let sent = 0;
const ratePerS = Math.max(0.2, Number(values.rate));
const generator = setInterval(async () => {
  const category = SAMPLE_CATEGORIES[sent % SAMPLE_CATEGORIES.length]!;
  try {
    await producer.sendBatch([{ body: Buffer.from(sampleResourceLogBody(category, { records: 1 + (sent % 3), index: sent })) }], { partitionId: String(sent % PARTITIONS) });
    sent++;
  } catch (error) {
    say(`generator: ${(error as Error).message}`);
  }
}, 1000 / ratePerS);

const env = { ...process.env, EVENTHUB_CONNECTION: emulator.connectionString(HUB), STORAGE_CONNECTION: azurite.connectionString };
const components = await builtinComponents();
const loaded = await loadConfig({ configs: [values.config!], env });
const config = resolveConfig(loaded.raw, components, loaded.unset);
const logger = createJsonLogger({ level: config.service.telemetry.logs.level, encoding: config.service.telemetry.logs.encoding });
say(`collector: ${values.config} (debug exporter below; Ctrl-C to stop)`);
const service = await Service.start(config, { logger });
const metrics = service.metricsAddress();
if (metrics) say(`metrics:  http://${metrics.host}:${metrics.port}/metrics`);

const receiver = service.receiver('azure_event_hub') as AzureEventHubReceiver | undefined;
let lastAccepted = 0;
let lastAt = Date.now();
const status = setInterval(() => {
  if (!receiver) return;
  const stats = receiver.stats();
  const now = Date.now();
  const rate = ((stats.counters.recordsAccepted - lastAccepted) * 1000) / (now - lastAt);
  lastAccepted = stats.counters.recordsAccepted;
  lastAt = now;
  const lag = stats.partitions.reduce((sum, p) => sum + p.lagEvents, 0);
  const maxLagS = Math.max(0, ...stats.partitions.map((p) => p.lagSeconds));
  say(`status: ${rate.toFixed(1)} records/s | events sent ${sent}, received ${stats.counters.eventsReceived} | partitions owned ${receiver.ownedPartitions().length}/${PARTITIONS} | lag ${lag} events, ${maxLagS.toFixed(1)} s | decode failures ${stats.counters.eventsFailedDecode}`);
}, STATUS_INTERVAL_MS);

let stoppingSince: number | undefined;
async function stop(reason: string): Promise<void> {
  if (stoppingSince !== undefined) {
    // Ctrl-C reaches the whole process group and npm/tsx relay it again: the same press, not a second one.
    if (Date.now() - stoppingSince < 1_000) return;
    say('second signal: exiting at once');
    process.exit(130);
  }
  stoppingSince = Date.now();
  say(`${reason}: stopping (final checkpoints, leases released) ...`);
  clearInterval(generator);
  clearInterval(status);
  await producer.close().catch(() => undefined);
  await service.shutdown();
  await emulator.stop();
  await azurite.stop();
  say('stopped cleanly');
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
if (values.duration) setTimeout(() => void stop(`--duration ${values.duration}s elapsed`), Number(values.duration) * 1000);
