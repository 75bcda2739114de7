/**
 * Two named receivers of one type read two hubs in one process, each into its own pipeline, and the
 * self-metrics tell them apart by the `receiver` attribute.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../src/emulator/index.ts';
import { randomName } from '../helpers/azurite.ts';
import { endpointOf, fileRecords, httpGet, startCli, waitUntil } from './cli-process.ts';

async function bodies(path: string): Promise<string[]> {
  return (await fileRecords(path)).map((r) => r.body?.stringValue ?? '');
}

test('azure_event_hub/audit and azure_event_hub/metrics read different hubs in one process', {
  timeout: 90_000,
}, async (t) => {
  const audit = randomName('audit');
  const platform = randomName('metrics');
  const emulator = await startEmulator({
    port: 0,
    hubs: [
      { name: audit, partitions: 1 },
      { name: platform, partitions: 2 },
    ],
  });
  t.after(() => emulator.stop());
  const dir = await mkdtemp(join(tmpdir(), 'otelcol-e2e-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const configPath = join(dir, 'config.yaml');
  await writeFile(
    configPath,
    `receivers:
  azure_event_hub/audit:
    connection: \${env:AUDIT_CONNECTION}
    format: json
    start_position: earliest
    poll_rate: 1
  azureeventhub/metrics:
    connection: \${env:METRICS_CONNECTION}
    format: json
    start_position: earliest
    poll_rate: 1
exporters:
  file/audit:
    path: ${join(dir, 'audit.jsonl')}
  file/metrics:
    path: ${join(dir, 'metrics.jsonl')}
service:
  pipelines:
    logs/audit:
      receivers: [azure_event_hub/audit]
      exporters: [file/audit]
    logs/metrics:
      receivers: [azureeventhub/metrics]
      exporters: [file/metrics]
  telemetry:
    metrics:
      address: 127.0.0.1:0
`,
  );
  emulator.append(audit, '0', [{ body: '"audit-1"' }, { body: '"audit-2"' }]);
  emulator.append(platform, '1', [{ body: '"metric-1"' }]);
  const cli = startCli(t, ['--config', configPath], {
    AUDIT_CONNECTION: emulator.connectionString(audit),
    METRICS_CONNECTION: emulator.connectionString(platform),
  });
  const metricsLine = await cli.waitForLog(
    (l) => l.msg === 'self-metrics endpoint listening',
    30_000,
    'metrics endpoint',
  );
  const metricsUrl = `http://${endpointOf(metricsLine)}/metrics`;

  await waitUntil(
    async () =>
      (await bodies(join(dir, 'audit.jsonl'))).length >= 2 && (await bodies(join(dir, 'metrics.jsonl'))).length >= 1
        ? true
        : undefined,
    30_000,
    'both files written',
  );
  assert.deepEqual((await bodies(join(dir, 'audit.jsonl'))).sort(), ['audit-1', 'audit-2']);
  assert.deepEqual(await bodies(join(dir, 'metrics.jsonl')), ['metric-1']);

  const text = (await httpGet(metricsUrl)).body;
  assert.match(
    text,
    /otelcol_receiver_accepted_log_records_total\{receiver="azure_event_hub\/audit",transport="amqp"\} 2/,
  );
  assert.match(
    text,
    /otelcol_receiver_accepted_log_records_total\{receiver="azureeventhub\/metrics",transport="amqp"\} 1/,
  );
  assert.match(
    text,
    /otelcol_receiver_azureeventhub_owned_partitions\{receiver="azureeventhub\/metrics",transport="amqp"\} 2/,
  );

  cli.child.kill('SIGTERM');
  assert.equal(await cli.exited(60_000), 0, cli.stderr().slice(-2000));
});
