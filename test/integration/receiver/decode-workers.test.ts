/**
 * Decode workers (issue 14): the collector's recommended pipeline (receiver → batch → otlphttp protobuf
 * with gzip) delivers exactly the same log records with `decode_workers` on as off, in order per
 * partition, and checkpoints only past events whose records the sink already holds. The records are
 * read from the sink's bytes by the strict opentelemetry-proto decoder (test/helpers/otlp-strict.ts).
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { BlobServiceClient } from '@azure/storage-blob';
import { loadConfig } from '../../../src/config/load-config.ts';
import type { Logger } from '../../../src/component/logger.ts';
import { SAMPLE_CATEGORIES, sampleResourceLogBody } from '../../../scripts/local/samples.ts';
import { builtinComponents } from '../../../src/distribution/builtin-components.ts';
import { resolveConfig } from '../../../src/distribution/resolve-config.ts';
import { Service } from '../../../src/distribution/service.ts';
import type { AzureEventHubReceiver } from '../../../src/receiver/receiver.ts';
import { startAzurite, randomName } from '../../helpers/azurite.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { strictDecodeProto } from '../../helpers/otlp-strict.ts';
import { startOtlpServer } from '../exporters/otlp-server.ts';
import { startReceiver, until } from './harness.ts';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOtlpHttpExporter, otlpHttpExporterConfigSchema } from '../../../src/exporters/otlp-http-exporter.ts';

const PARTITIONS = 3;
const PER_PARTITION = 120;
const SEQ = 'azure.eventhubs.message.sequence_number';
const PID = 'messaging.destination.partition.id';

interface SinkRecord {
  readonly partition: string;
  readonly sequenceNumber: number;
  /** The request it came in, counted from 0. */
  readonly request: number;
  /** The record with its resource and scope, without the observed time (the decode's clock). */
  readonly canonical: string;
}

function attribute(record: any, key: string): any {
  const value = record.attributes?.find((a: any) => a.key === key)?.value;
  return value?.stringValue ?? value?.intValue;
}

/**
 * Each request body decoded once: the checks below read the sink on every checkpoint and every poll, and decoding
 * every request again each time made this file's CPU grow with the square of the requests.
 */
const decodedBodies = new WeakMap<Buffer, Omit<SinkRecord, 'request'>[]>();

function decodeBody(body: Buffer): Omit<SinkRecord, 'request'>[] {
  const known = decodedBodies.get(body);
  if (known !== undefined) return known;
  const records: Omit<SinkRecord, 'request'>[] = strictDecodeProto(body, 'logs').resourceLogs.flatMap((rl: any) =>
    rl.scopeLogs.flatMap((sl: any) =>
      sl.logRecords.map((r: any) => {
        const { observedTimeUnixNano: _observed, ...rest } = r;
        return {
          partition: String(attribute(r, PID)),
          sequenceNumber: Number(attribute(r, SEQ)),
          canonical: JSON.stringify({ resource: rl.resource, scope: sl.scope, ...rest }),
        };
      }),
    ),
  );
  decodedBodies.set(body, records);
  return records;
}

function sinkRecords(bodies: readonly Buffer[]): SinkRecord[] {
  return bodies.flatMap((body, request) => decodeBody(body).map((r) => ({ ...r, request })));
}

const quiet: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => quiet };

async function drain(
  t: TestContext,
  workers: number,
  hub: { connectionString: string; records: number },
  storage: string,
) {
  const sink = await startOtlpServer();
  t.after(() => sink.close());
  const container = randomName('workers');
  await BlobServiceClient.fromConnectionString(storage).getContainerClient(container).create();
  const yaml = `
receivers:
  azure_event_hub:
    connection: "${hub.connectionString}"
    format: azure
    event_metadata: messaging
    start_position: earliest
    max_poll_events: 25
    poll_rate: 0.2
    decode_workers: ${workers}
    checkpoint: { interval: 50ms }
    blob_checkpoint_store: { connection: "${storage}", container_name: ${container} }
    ownership: { update_interval: 200ms }
processors:
  batch: {}
exporters:
  otlphttp: { endpoint: "${sink.url}", encoding: proto, compression: gzip }
service:
  pipelines:
    logs: { receivers: [azure_event_hub], processors: [batch], exporters: [otlphttp] }
  telemetry:
    metrics: { level: none }
`;
  const loaded = await loadConfig({ configs: [`yaml:${yaml}`], env: {} });
  const service = await Service.start(resolveConfig(loaded.raw, await builtinComponents()), { logger: quiet });
  t.after(() => service.shutdown());
  const receiver = service.receiver('azure_event_hub') as AzureEventHubReceiver;
  // Each checkpoint written must be covered by what the sink had received for that partition by then.
  const violations: string[] = [];
  receiver.onStatus((s) => {
    if (s.type !== 'checkpointWritten' || s.sequenceNumber < 0) return;
    const held = sinkRecords(sink.requests.map((r) => r.body)).filter((r) => r.partition === s.partitionId);
    const highest = Math.max(-1, ...held.map((r) => r.sequenceNumber));
    if (s.sequenceNumber > highest)
      violations.push(`partition ${s.partitionId}: checkpoint ${s.sequenceNumber}, sink up to ${highest}`);
  });
  await until(
    () => sinkRecords(sink.requests.map((r) => r.body)).length >= hub.records,
    60_000,
    'every record at the sink',
  );
  // The sink holds a request before the exporter has its answer: wait for the receiver to count the last one too.
  await until(() => receiver.stats().counters.recordsAccepted >= hub.records, 30_000, 'every record counted accepted');
  const counters = receiver.stats().counters;
  await service.shutdown();
  return { records: sinkRecords(sink.requests.map((r) => r.body)), counters, violations };
}

test('decode_workers on and off deliver the same records, in order per partition, checkpointed after export', {
  timeout: 180_000,
}, async (t) => {
  const azurite = await startAzurite();
  t.after(() => azurite.stop());
  const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: PARTITIONS });
  const time = new Date('2026-05-14T09:12:44Z');
  let records = 0;
  for (let p = 0; p < PARTITIONS; p++) {
    emulator.append(
      hubName,
      String(p),
      Array.from({ length: PER_PARTITION }, (_, i) => {
        const count = i % 5 === 4 ? 2 : 1;
        records += count;
        const index = p * PER_PARTITION + i;
        // One malformed event per partition (counted as one record above): exported raw, counted, on both paths alike.
        if (i === 17) return { body: '{"records": [ {"time": ' };
        return {
          body: sampleResourceLogBody(SAMPLE_CATEGORIES[index % SAMPLE_CATEGORIES.length]!, {
            records: count,
            index,
            time,
          }),
        };
      }),
    );
  }
  const hub = { connectionString, records };

  const off = await drain(t, 0, hub, azurite.connectionString);
  const on = await drain(t, 2, hub, azurite.connectionString);

  assert.equal(off.counters.eventsDecodedOffThread, 0);
  assert.equal(
    on.counters.eventsDecodedOffThread,
    PARTITIONS * PER_PARTITION,
    'every event decoded on a decode thread',
  );
  assert.equal(on.counters.eventsDecodeFallbacks, 0);
  assert.equal(on.counters.eventsFailedDecode, PARTITIONS);
  assert.equal(on.counters.eventsFailedDecode, off.counters.eventsFailedDecode);
  assert.equal(on.counters.recordsAccepted, records);
  assert.equal(off.counters.recordsAccepted, records);
  assert.deepEqual(on.violations, []);
  assert.deepEqual(off.violations, []);
  assert.equal(on.records.length, records, 'no record twice');
  assert.deepEqual(on.records.map((r) => r.canonical).sort(), off.records.map((r) => r.canonical).sort());
  for (let p = 0; p < PARTITIONS; p++) {
    const mine = on.records.filter((r) => r.partition === String(p));
    assert.equal(new Set(mine.map((r) => r.sequenceNumber)).size, PER_PARTITION, `partition ${p}: every event`);
    // A request groups its records by resource (OTLP), so order shows between requests: every event of a
    // partition in one request comes after every event of that partition in the requests before it.
    const requests = [...new Set(mine.map((r) => r.request))];
    for (let i = 1; i < requests.length; i++) {
      const before = Math.max(...mine.filter((r) => r.request === requests[i - 1]).map((r) => r.sequenceNumber));
      const after = Math.min(...mine.filter((r) => r.request === requests[i]).map((r) => r.sequenceNumber));
      assert.ok(before < after, `partition ${p}: request ${requests[i]} starts at ${after}, after ${before}`);
    }
    assert.ok(requests.length > 1, `partition ${p}: over several requests (${requests.length})`);
  }
});

test('decode_workers with max_request_bytes below a batch: split by records, one oversized record dead-lettered ' +
  'alone', {
  timeout: 60_000,
}, async (t) => {
  const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: 1 });
  const sink = await startOtlpServer();
  t.after(() => sink.close());
  const dir = await mkdtemp(join(tmpdir(), 'decode-workers-dl-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  // `raw`: every record has the same (empty) resource, so a batch is one resource_logs entry of ~60 KB.
  emulator.append(
    hubName,
    '0',
    Array.from({ length: 30 }, (_, i) => ({ body: `${i}:`.padEnd(i === 12 ? 20_000 : 2_000, 'x') })),
  );
  const exporter = await createOtlpHttpExporter(
    otlpHttpExporterConfigSchema.parse({
      endpoint: sink.url,
      compression: 'none',
      max_request_bytes: 8_192,
    }),
  );
  assert.equal(exporter.acceptsEncodedLogs, true);
  const receiver = startReceiver(
    t,
    {
      connection: connectionString,
      format: 'raw',
      start_position: 'earliest',
      max_poll_events: 30,
      decode_workers: 1,
      dead_letter: { directory: dir },
    },
    exporter,
  );
  await receiver.start();
  // The refused record is counted before its event is written to the dead-letter store: wait for both.
  const done = () => receiver.stats().counters.recordsAccepted + receiver.stats().counters.eventsDeadLettered >= 30;
  await until(done, 30_000, 'all 30 records delivered or dead-lettered');
  const c = receiver.stats().counters;
  assert.equal(c.eventsDecodedOffThread, 30, 'decoded on a decode thread first');
  assert.equal(c.recordsAccepted, 29);
  assert.equal(c.eventsDeadLettered, 1);
  for (const r of sink.requests) assert.ok(r.body.length <= 8_192, `a request of ${r.body.length} bytes`);
  const bodies = sinkBodies(sink.requests.map((r) => r.body));
  assert.deepEqual(
    bodies.map((b) => Number(b.split(':')[0])),
    Array.from({ length: 30 }, (_, i) => i).filter((i) => i !== 12),
  );
  const files = await readdir(dir, { recursive: true });
  assert.ok(files.length > 0, "the oversized record's event is in the dead-letter directory");
});

function sinkBodies(bodies: readonly Buffer[]): string[] {
  return bodies.flatMap((body) =>
    strictDecodeProto(body, 'logs').resourceLogs.flatMap((rl: any) =>
      rl.scopeLogs.flatMap((sl: any) => sl.logRecords.map((r: any) => String(r.body.stringValue))),
    ),
  );
}
