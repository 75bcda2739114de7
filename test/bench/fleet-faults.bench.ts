/**
 * Black-box measurements for issue 23 ("Truthful under partial failure"), run as a user runs the product:
 * collector CLI processes (`bin/otelcol-azure-eventhub.js --config FILE`, dist/ built) reading the emulator,
 * checkpointing to Azurite (on disk, so it can be stopped and started again with its data), exporting with
 * `otlphttp` to an in-process sink that counts every record by its partition and sequence number. Health is
 * polled every second per instance. Scenarios (internal/fleet-faults/):
 *
 * - `exporter-outage`: the sink answers 503 for 180 s; time to `degraded`, back to ready, counters, loss.
 * - `storage-outage`: Azurite stopped for 60 s and restarted; loss, duplicates %, health and liveness.
 * - `kill-chaos`: 4 instances, one killed (kill -9) every 10-20 s for 5 min; loss, duplicates %, re-read per crash.
 * - `wrong-cg`: a consumer group that does not exist on a 32-partition hub for 60 s; warn/error lines.
 *
 * Environment: `FLEET_FAULTS` (comma-separated scenarios; default all), `FLEET_BACKEND` (`polling`,
 * `streaming`, `both`: default), `FLEET_SCALE` (multiplies every duration; 1 = the issue's, 0.25 for a
 * short run), `FLEET_RATE` (events/s, default 100), `FLEET_PARTITIONS` (default 8),
 * `FLEET_CHECKPOINT_INTERVAL` (e.g. `5s`; default the product's), `FLEET_LIVENESS_PATH` (a liveness path
 * to poll beside the main health endpoint), `FLEET_STORAGE_INSTANCES` (per backend, default 2),
 * `FLEET_SEED` (kill schedule). The full result is also written to .tmp/fleet-faults-<time>.json.
 *
 * `npm run bench -- fleet-faults`, or directly: `node --import tsx test/bench/fleet-faults.bench.ts`
 * after `npm run build`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { everyCollector, log, settingsFromEnv, type Context } from './internal/fleet-faults/context.ts';
import { startDiskAzurite, type DiskAzurite } from './internal/fleet-faults/disk-azurite.ts';
import { exporterOutage } from './internal/fleet-faults/exporter-outage.ts';
import { startIdSink } from './internal/fleet-faults/id-sink.ts';
import { killChaos } from './internal/fleet-faults/kill-chaos.ts';
import { storageOutage } from './internal/fleet-faults/storage-outage.ts';
import { wrongCg } from './internal/fleet-faults/wrong-cg.ts';

const SCENARIOS: Record<string, (ctx: Context, azurite: DiskAzurite) => Promise<unknown>> = {
  'exporter-outage': exporterOutage,
  'storage-outage': storageOutage,
  'kill-chaos': killChaos,
  'wrong-cg': wrongCg,
};

const chosen = (process.env.FLEET_FAULTS ?? Object.keys(SCENARIOS).join(','))
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
for (const name of chosen)
  if (!(name in SCENARIOS))
    throw new Error(`FLEET_FAULTS: unknown scenario '${name}' (known: ${Object.keys(SCENARIOS).join(', ')})`);
const settings = settingsFromEnv();
let seed = settings.seed;
const dir = mkdtempSync(join(tmpdir(), 'fleet-faults-'));
const sink = await startIdSink();
const azurite = await startDiskAzurite();
const ctx: Context = {
  settings,
  sink,
  dir,
  random: () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31,
  ms: (seconds) => Math.round(seconds * 1000 * settings.scale),
};
log(
  `fleet-faults: ${chosen.join(', ')}; backends ${settings.backends.join(', ')}; scale ${settings.scale}; ` +
    `${settings.eventsPerSecond} events/s over ${settings.partitions} partitions; checkpoint.interval ` +
    `${settings.checkpointInterval ?? 'default'}`,
);
const results: Record<string, unknown> = {};
let failed = false;
try {
  for (const name of chosen) {
    log(`=== ${name}`);
    try {
      results[name] = await SCENARIOS[name]!(ctx, azurite);
    } catch (error) {
      failed = true;
      results[name] = { error: String(error) };
      log(`${name} failed: ${String(error)}`);
    }
  }
} finally {
  await Promise.all(everyCollector.map((c) => c.kill()));
  await azurite.dispose();
  await sink.stop();
  rmSync(dir, { recursive: true, force: true });
}
const result = { settings, finishedAt: new Date().toISOString(), results };
const out = join(import.meta.dirname, '..', '..', '.tmp');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, `fleet-faults-${Date.now()}.json`), JSON.stringify(result, null, 2));
console.log(`BENCH_RESULT ${JSON.stringify(result)}`);
process.exit(failed ? 1 : 0);
