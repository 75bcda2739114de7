/**
 * The CLI end to end, as a child process against the emulator and Azurite: a valid config exports to a
 * file (OTLP JSON), the metrics endpoint and the health endpoint reflect the receiver, SIGTERM leaves final
 * checkpoints and released leases, and a second instance takes over at once from those checkpoints.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { randomName, startAzurite } from '../helpers/azurite.ts';
import { startTestEmulator } from '../helpers/emulator.ts';
import { endpointOf, fileRecords, httpGet, startCli, waitUntil } from './cli-process.ts';

const PARTITIONS = 2;

function parseExposition(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)/.exec(line);
    if (m && !line.startsWith('#')) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

test('run: exports to a file, serves metrics and health, stops gracefully on SIGTERM, and a successor takes over', {
  timeout: 120_000,
}, async (t) => {
  const azurite = await startAzurite();
  t.after(() => azurite.stop());
  const eh = await startTestEmulator(t, { partitions: PARTITIONS });
  const dir = await mkdtemp(join(tmpdir(), 'otelcol-e2e-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const container = randomName('ckpt');
  const out = join(dir, 'out.jsonl');
  const configPath = join(dir, 'config.yaml');
  await writeFile(
    configPath,
    `receivers:
  azure_event_hub:
    connection: \${env:EH_CONNECTION}
    group: ${eh.consumerGroup}
    format: json
    start_position: earliest
    poll_rate: 1
    max_poll_events: 50
    retention: 1h
    blob_checkpoint_store:
      connection: \${env:STORAGE_CONNECTION}
      container_name: ${container}
      create_container: true
    # Long enough that only the final checkpoint written at shutdown can hold the last events.
    checkpoint:
      interval: 1h
    ownership:
      update_interval: 1s
exporters:
  file:
    path: ${out}
extensions:
  health_check:
    endpoint: 127.0.0.1:0
service:
  extensions: [health_check]
  pipelines:
    logs:
      receivers: [azure_event_hub]
      exporters: [file]
  telemetry:
    metrics:
      address: 127.0.0.1:0
`,
  );
  const env = { EH_CONNECTION: eh.connectionString, STORAGE_CONNECTION: azurite.connectionString };

  eh.emulator.append(
    eh.hubName,
    '0',
    Array.from({ length: 5 }, (_, i) => ({ body: JSON.stringify({ n: i, p: 0 }) })),
  );
  eh.emulator.append(
    eh.hubName,
    '1',
    Array.from({ length: 3 }, (_, i) => ({ body: JSON.stringify({ n: i, p: 1 }) })),
  );

  const first = startCli(t, ['--config', configPath], env);
  const healthLine = await first.waitForLog(
    (l) => l.msg === 'health check endpoint listening',
    30_000,
    'health endpoint',
  );
  const health = `http://${endpointOf(healthLine)}/`;
  const metricsLine = await first.waitForLog(
    (l) => l.msg === 'self-metrics endpoint listening',
    30_000,
    'metrics endpoint',
  );
  const metricsUrl = `http://${endpointOf(metricsLine)}/metrics`;

  // Ready once the hub is reached and partitions are owned.
  await waitUntil(async () => ((await httpGet(health)).status === 200 ? true : undefined), 30_000, 'health 200');
  const records = await waitUntil(
    async () => {
      const r = await fileRecords(out);
      return r.length >= 8 ? r : undefined;
    },
    30_000,
    '8 records in the file',
  );
  assert.equal(records.length, 8);

  // Metrics: counters, owned partitions and lag per partition are present, and move with new events.
  const A = 'receiver="azure_event_hub",transport="amqp"';
  let m = parseExposition((await httpGet(metricsUrl)).body);
  assert.equal(m.get(`otelcol_receiver_accepted_log_records_total{${A}}`), 8);
  assert.equal(m.get(`otelcol_receiver_azureeventhub_owned_partitions{${A}}`), PARTITIONS);
  for (let p = 0; p < PARTITIONS; p++)
    assert.ok(
      m.has(`otelcol_receiver_azureeventhub_partition_lag_events{${A},partition="${p}"}`),
      `lag of partition ${p}`,
    );
  eh.emulator.append(
    eh.hubName,
    '1',
    Array.from({ length: 4 }, (_, i) => ({ body: JSON.stringify({ n: 100 + i, p: 1 }) })),
  );
  m = await waitUntil(
    async () => {
      const now = parseExposition((await httpGet(metricsUrl)).body);
      return now.get(`otelcol_receiver_accepted_log_records_total{${A}}`) === 12 ? now : undefined;
    },
    30_000,
    'accepted records to reach 12',
  );
  assert.equal(m.get(`otelcol_receiver_azureeventhub_events_received_total{${A}}`), 12);

  // SIGTERM: graceful stop, exit 0, final checkpoints written and leases released.
  first.child.kill('SIGTERM');
  assert.equal(await first.exited(60_000), 0, first.stderr().slice(-3000));
  const blobs = BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(container);
  const checkpoints = new Map<string, number>();
  const leases = new Map<string, string | undefined>();
  for await (const b of blobs.listBlobsFlat({ includeMetadata: true })) {
    const pid = b.name.split('/').pop()!;
    if (b.name.includes('/checkpoint/')) checkpoints.set(pid, Number(b.metadata?.sequencenumber));
    if (b.name.includes('/ownership/')) leases.set(pid, b.properties.leaseState);
  }
  assert.deepEqual(
    Object.fromEntries(checkpoints),
    { '0': 4, '1': 6 },
    'final checkpoints at the last exported events',
  );
  assert.equal(leases.size, PARTITIONS);
  for (const [pid, state] of leases) assert.notEqual(state, 'leased', `partition ${pid} lease released`);
  assert.ok(
    !first.stderr().includes(azurite.connectionString.match(/AccountKey=([^;]+)/)![1]!),
    'no account key in the logs',
  );

  // A successor owns every partition before the old leases could have expired (15 s), and continues
  // from the checkpoints: only the new event is exported.
  eh.emulator.append(eh.hubName, '0', [{ body: JSON.stringify({ n: 200, p: 0 }) }]);
  const second = startCli(t, ['--config', configPath], env);
  await waitUntil(
    async () => ((await fileRecords(out)).length >= 13 ? true : undefined),
    12_000,
    'the successor to export the new event',
  );
  // Balanced claiming takes one partition per round (the next follows at once): wait for all of them,
  // still well inside the 15 s the old leases would need to expire.
  await waitUntil(
    async () => {
      const o = second
        .logs()
        .filter((l) => l.msg === 'partition owned')
        .map((l) => l.partition);
      return new Set(o).size === PARTITIONS ? o : undefined;
    },
    10_000,
    'the successor to own every partition',
  );
  second.child.kill('SIGTERM');
  assert.equal(await second.exited(60_000), 0);
  const all = await fileRecords(out);
  assert.equal(all.length, 13, 'no duplicates after the hand-off');
});
