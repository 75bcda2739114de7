/**
 * A config in today's Go collector layout (test/fixtures/go-configs/today-collector-layout.yaml) runs
 * against the emulator: given through `--config env:`, with a `::` --set, the metrics endpoint where the
 * pull/prometheus reader puts it, health_check answering, records exported, a clean stop, no warnings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sampleResourceLogBody } from '../../scripts/local/samples.ts';
import { startTestEmulator } from '../helpers/emulator.ts';
import { endpointOf, httpGet, startCli, waitUntil } from './cli-process.ts';

const FIXTURE = join(import.meta.dirname, '../fixtures/go-configs/today-collector-layout.yaml');

test("today's collector layout runs against the emulator: readers, ::, env: config, memory_limiter, zpages, pprof, " +
  'health_check', {
  timeout: 90_000,
}, async (t) => {
  const eh = await startTestEmulator(t, { partitions: 2 });
  const cli = startCli(
    t,
    ['--config', 'env:COLLECTOR_CONFIG', '--set', 'receivers::azure_event_hub::max_poll_events=7'],
    {
      COLLECTOR_CONFIG: readFileSync(FIXTURE, 'utf8'),
      EVENTHUB_CONNECTION: eh.connectionString,
      METRICS_PORT: '0',
      HEALTH_ENDPOINT: '127.0.0.1:0',
      ZPAGES_ENDPOINT: '127.0.0.1:0',
      PPROF_ENDPOINT: '127.0.0.1:0',
    },
  );
  const metrics = await cli.waitForLog((l) => l.msg === 'self-metrics endpoint listening', 30_000, 'metrics endpoint');
  assert.match(endpointOf(metrics), /^127\.0\.0\.1:\d+$/);
  assert.notEqual(endpointOf(metrics), '127.0.0.1:8888', 'the reader port (0) was used, not the default');
  assert.equal((await httpGet(`http://${endpointOf(metrics)}/metrics`)).status, 200);
  const health = await cli.waitForLog((l) => l.msg === 'health check endpoint listening', 30_000, 'health endpoint');
  // The extensions a Go config carries are real components here: zpages pages and pprof on loopback.
  const zpages = await cli.waitForLog((l) => l.msg === 'zpages endpoint listening', 30_000, 'zpages endpoint');
  assert.equal((await httpGet(`http://${endpointOf(zpages)}/debug/servicez`)).status, 200);
  await cli.waitForLog((l) => l.msg === 'pprof endpoint listening', 30_000, 'pprof endpoint');

  // Without a checkpoint store the receiver starts at the latest event: send once both partitions are open.
  await waitUntil(
    async () =>
      new Set(
        cli
          .logs()
          .filter((l) => l.msg === 'partition owned')
          .map((l) => l.partition),
      ).size === 2
        ? true
        : undefined,
    30_000,
    'both partitions open',
  );
  eh.emulator.append(eh.hubName, '0', [{ body: sampleResourceLogBody('storage-read', { records: 3 }) }]);
  eh.emulator.append(eh.hubName, '1', [{ body: sampleResourceLogBody('keyvault-audit', { records: 2 }) }]);
  await waitUntil(
    async () => {
      const counts = [...cli.stdout().matchAll(/"log records":(\d+)/g)].map((m) => Number(m[1]));
      return counts.reduce((a, b) => a + b, 0) >= 5 ? true : undefined;
    },
    30_000,
    '5 records on the debug exporter',
  );
  await waitUntil(
    async () => ((await httpGet(`http://${endpointOf(health)}/`)).status === 200 ? true : undefined),
    30_000,
    'health 200',
  );

  const warnings = cli.logs().filter((l) => l.level === 'warn' && /ignored|not set/.test(String(l.msg)));
  assert.deepEqual(warnings, [], 'nothing in the config is ignored');
  cli.child.kill('SIGINT');
  assert.equal(await cli.exited(60_000), 0, cli.stderr().slice(-2000));
});
