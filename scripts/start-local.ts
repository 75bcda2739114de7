/**
 * `npm start`: the whole product on one machine with no Azure account. Starts Azurite (blob storage,
 * from node_modules) and the Event Hubs emulator on loopback, a generator that sends realistic Azure
 * resource logs through the real SDK producer, and the collector on config/local.yaml, which prints the
 * decoded records. Every few seconds a status line shows events/s, partitions owned and lag.
 * Ctrl-C stops everything cleanly. Options: --duration SECONDS (stop by itself), --rate EVENTS_PER_S,
 * --verbosity compact|basic|normal|detailed (the debug exporter's; default compact, one line per record),
 * --signals logs,metrics,traces (default logs; also Azure platform metrics and Application Insights
 * requests and dependencies, each signal in events of its own and a pipeline of its own on the same receiver).
 * Ports: METRICS_ADDRESS (default 127.0.0.1:8888) and HEALTH_ENDPOINT (127.0.0.1:13133) move the two
 * fixed ones; Azurite and the emulator take free ports.
 */
import { parseArgs } from 'node:util';
import type { AzureEventHubReceiver } from '../src/receiver/receiver.ts';
import type { Signal } from '../src/pipeline/signals.ts';
import { startAzurite } from './local/azurite.ts';
import { DEFAULT_DEMO_SIGNALS, parseDemoSignals, withDemoSignals } from './local/demo-signals.ts';

const HUB = 'resource-logs';
const PARTITIONS = 4;
const STATUS_INTERVAL_MS = 5_000;

const { values } = parseArgs({
  options: {
    duration: { type: 'string' },
    rate: { type: 'string', default: '4' },
    config: { type: 'string', default: 'config/local.yaml' },
    verbosity: { type: 'string', default: process.env.DEBUG_VERBOSITY ?? 'compact' },
    signals: { type: 'string', default: DEFAULT_DEMO_SIGNALS.join(',') },
  },
});
/** The variable that moves each fixed port of config/local.yaml, for a clear message on a clash. */
const PORT_VARIABLES = [
  { variable: 'METRICS_ADDRESS', fallback: '127.0.0.1:8888' },
  { variable: 'HEALTH_ENDPOINT', fallback: '127.0.0.1:13133' },
];
const say = (text: string) => process.stderr.write(`\x1b[36m[local]\x1b[0m ${text}\n`);

let signals: Signal[];
try {
  signals = parseDemoSignals(values.signals!);
} catch (error) {
  say((error as Error).message);
  process.exit(2);
}
const mixed = signals.length > 1 || signals[0] !== 'logs';

say('starting Azurite (blob storage) and the Event Hubs emulator on 127.0.0.1 ...');
// Azurite boots in a process of its own (on the other core) while this one loads the rest.
const azuriteStarted = startAzurite();
// The SDK, the emulator and the collector load once the arguments are known good: a wrong flag is
// reported in a fraction of the time (through tsx, loading them costs seconds of CPU).
const [
  { EventHubProducerClient },
  { startEmulator },
  { SAMPLE_CATEGORIES, sampleMetricBody, sampleResourceLogBody, sampleTraceBody },
  { builtinComponents },
  { loadConfig },
  { resolveConfig },
  { Service },
  { createJsonLogger },
] = await Promise.all([
  import('@azure/event-hubs'),
  import('../src/emulator/index.ts'),
  import('./local/samples.ts'),
  import('../src/distribution/builtin-components.ts'),
  import('../src/config/load-config.ts'),
  import('../src/distribution/resolve-config.ts'),
  import('../src/distribution/service.ts'),
  import('../src/telemetry/json-logger.ts'),
]);

const [azurite, emulator] = await Promise.all([
  azuriteStarted,
  startEmulator({ host: '127.0.0.1', port: 0, hubs: [{ name: HUB, partitions: PARTITIONS }] }),
]);
say(`emulator: ${emulator.connectionString(HUB).replace(/SharedAccessKey=[^;]+/, 'SharedAccessKey=***')}`);
say(`azurite:  blob endpoint ${azurite.blobEndpoint}`);

// The generator: realistic Azure diagnostic-settings bodies ({"records": [...]}) across categories; with
// --signals, platform metrics and Application Insights operations too, in turn, each in events of its own.
const producer = new EventHubProducerClient(emulator.connectionString(HUB));
let sent = 0;
const sentBySignal: Record<Signal, number> = { logs: 0, metrics: 0, traces: 0 };
/** Event body number `n` of a signal. */
const sampleBody: Record<Signal, (n: number) => string> = {
  logs: (n) => {
    const category = SAMPLE_CATEGORIES[n % SAMPLE_CATEGORIES.length]!;
    return sampleResourceLogBody(category, { records: 1 + (n % 3), index: n });
  },
  // One resource's four metrics for the last minute, as diagnostic settings batch them.
  metrics: (n) => sampleMetricBody({ records: 4, index: n }),
  // One operation: its request and one to three dependencies.
  traces: (n) => sampleTraceBody({ records: 2 + (n % 3), index: n }),
};
const ratePerS = Math.max(0.2, Number(values.rate));
const generator = setInterval(async () => {
  const signal = signals[sent % signals.length]!;
  try {
    const body = Buffer.from(sampleBody[signal](sentBySignal[signal]));
    await producer.sendBatch([{ body }], { partitionId: String(sent % PARTITIONS) });
    sentBySignal[signal]++;
    sent++;
  } catch (error) {
    say(`generator: ${(error as Error).message}`);
  }
}, 1000 / ratePerS);

const env = {
  ...process.env,
  EVENTHUB_CONNECTION: emulator.connectionString(HUB),
  STORAGE_CONNECTION: azurite.connectionString,
  DEBUG_VERBOSITY: values.verbosity,
};
const components = await builtinComponents();
const loaded = await loadConfig({ configs: [values.config!], env });
const config = resolveConfig(mixed ? withDemoSignals(loaded.raw, signals) : loaded.raw, components, loaded.unset);
const logger = createJsonLogger({
  level: config.service.telemetry.logs.level,
  encoding: config.service.telemetry.logs.encoding,
});
const withPipelines = mixed ? ` with pipelines ${signals.join(', ')}` : '';
say(`collector: ${values.config}${withPipelines} (debug exporter below; Ctrl-C to stop)`);
let service: Awaited<ReturnType<typeof Service.start>>;
try {
  service = await Service.start(config, { logger });
} catch (error) {
  say(`could not start the collector: ${portClashHint(error) ?? (error as Error).message}`);
  clearInterval(generator);
  await producer.close().catch(() => undefined);
  await emulator.stop();
  await azurite.stop();
  process.exit(1);
}
const metrics = service.metricsAddress();
if (metrics) say(`metrics:  http://${metrics.host}:${metrics.port}/metrics`);

const receiver = service.receiver('azure_event_hub') as AzureEventHubReceiver | undefined;
/** Items accepted per signal, the counter and its unit on the status line. */
const ACCEPTED = {
  logs: { counter: 'recordsAccepted', unit: 'records' },
  metrics: { counter: 'metricPointsAccepted', unit: 'points' },
  traces: { counter: 'spansAccepted', unit: 'spans' },
} as const;
const lastAccepted: Record<Signal, number> = { logs: 0, metrics: 0, traces: 0 };
let lastAt = Date.now();
const status = setInterval(() => {
  if (!receiver) return;
  const stats = receiver.stats();
  const now = Date.now();
  // Logs only (the default): "N records/s", as always; with --signals, one rate per signal shown.
  const rates = (mixed ? signals : (['logs'] as const)).map((signal) => {
    const { counter, unit } = ACCEPTED[signal];
    const accepted = stats.counters[counter];
    const rate = ((accepted - lastAccepted[signal]) * 1000) / (now - lastAt);
    lastAccepted[signal] = accepted;
    return `${rate.toFixed(1)} ${unit}/s`;
  });
  lastAt = now;
  const lag = stats.partitions.reduce((sum, p) => sum + p.lagEvents, 0);
  const maxLagS = Math.max(0, ...stats.partitions.map((p) => p.lagSeconds));
  const bySignal = mixed ? ` (${signals.map((s) => `${s} ${sentBySignal[s]}`).join(', ')})` : '';
  say(
    [
      `status: ${rates.join(', ')}`,
      `events sent ${sent}${bySignal}, received ${stats.counters.eventsReceived}`,
      `partitions owned ${receiver.ownedPartitions().length}/${PARTITIONS}`,
      `lag ${lag} events, ${maxLagS.toFixed(1)} s`,
      `decode failures ${stats.counters.eventsFailedDecode}`,
    ].join(' | '),
  );
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
if (values.duration)
  setTimeout(() => void stop(`--duration ${values.duration}s elapsed`), Number(values.duration) * 1000);

/** For an address already in use: which variable moves that port. Undefined for other errors. */
function portClashHint(error: unknown): string | undefined {
  const text = `${(error as Error)?.message ?? ''} ${String((error as { cause?: unknown })?.cause ?? '')}`;
  if (!/EADDRINUSE|address already in use/i.test(text)) return undefined;
  for (const { variable, fallback } of PORT_VARIABLES) {
    const address = process.env[variable] ?? fallback;
    const port = address.slice(address.lastIndexOf(':') + 1);
    if (new RegExp(`:${port}\\b`).test(text)) {
      return (
        `${address} is already in use (another collector or npm start?); set ${variable} to another host:port, ` +
        `e.g. ${variable}=127.0.0.1:0 for a free port`
      );
    }
  }
  return (
    `a port is already in use (${text.trim()}); set METRICS_ADDRESS or HEALTH_ENDPOINT to another host:port ` +
    `(127.0.0.1:0 picks a free one)`
  );
}
