/**
 * Requests bounded by bytes, end to end: real events from the emulator, the receiver, the `otlp` (gRPC)
 * exporter and a grpc-js server holding the gRPC default limit of 4 MiB per message (the Go collector's
 * too). Six 900 KB events (~5.4 MB, ~10.8 MB in the issue's run with their duplicated text) must all
 * arrive with nothing dead-lettered; with `max_request_bytes` below one record, that record is
 * dead-lettered at once with its reason and the rest of its batch is delivered.
 *
 * One event per partition on six partitions, combined by a `batch` processor waiting for six records: the
 * exporter then always gets the six in one batch (a partition's reader may hand over big events one or two
 * at a time, which would not exercise the bound).
 */
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server, ServerCredentials, type ServerUnaryCall, type sendUnaryData } from '@grpc/grpc-js';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { decodeLogsRequest } from '../../helpers/otlp-logs-proto.ts';
import { otlpGrpcExporterFactory } from '../../../src/exporters/factories.ts';
import { otlpGrpcExporterConfigSchema } from '../../../src/exporters/otlp-grpc-exporter.ts';
import { noopLogger, type Logger } from '../../../src/component/logger.ts';
import { parseDeadLetterLine } from '../../../src/pipeline/dead-letter-format.ts';
import { PID, startReceiver, until } from './harness.ts';
import { BatchProcessor } from '../../../src/processors/batch-processor.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';

const EXPORT_PATH = '/opentelemetry.proto.collector.logs.v1.LogsService/Export';
const FOUR_MIB = 4 * 1024 * 1024;
const EVENT_BYTES = 900_000;
const identity = (b: Buffer) => b;

interface LimitedServer {
  readonly endpoint: string;
  /** Sizes of the messages the server accepted, and the partitions of their records. */
  readonly accepted: { bytes: number; partitions: number[] }[];
}

/** A grpc-js OTLP logs server limited to 4 MiB per received message, stopped after the test. */
async function startLimitedServer(t: TestContext): Promise<LimitedServer> {
  const server = new Server({ 'grpc.max_receive_message_length': FOUR_MIB });
  const state: LimitedServer = { endpoint: '', accepted: [] };
  server.addService(
    {
      Export: {
        path: EXPORT_PATH,
        requestStream: false,
        responseStream: false,
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      },
    },
    {
      Export: (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
        const request = decodeLogsRequest(call.request);
        const partitions: number[] = [];
        for (const rl of request.resourceLogs ?? [])
          for (const sl of rl.scopeLogs ?? [])
            for (const r of sl.logRecords ?? []) {
              partitions.push(Number(r.attributes.find((a: any) => a.key === PID).value.stringValue));
            }
        state.accepted.push({ bytes: call.request.length, partitions });
        callback(null, Buffer.alloc(0));
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  t.after(() => new Promise<void>((resolve) => server.tryShutdown(() => resolve())));
  return Object.assign(state, { endpoint: `127.0.0.1:${port}` });
}

async function grpcExporter(
  t: TestContext,
  endpoint: string,
  section: Record<string, unknown> = {},
  warnings: string[] = [],
) {
  const config = otlpGrpcExporterConfigSchema.parse({
    endpoint,
    tls: { insecure: true },
    retry_on_failure: { initial_interval: '20ms', max_interval: '100ms', max_elapsed_time: '10s' },
    ...section,
  });
  const logger: Logger = { ...noopLogger, warn: (message) => void warnings.push(message), child: () => logger };
  const exporter = await otlpGrpcExporterFactory.create({ id: 'otlp/limited', logger }, config);
  t.after(() => exporter.shutdown?.());
  return exporter;
}

async function deadLetters(dir: string): Promise<ReturnType<typeof parseDeadLetterLine>['record'][]> {
  const out = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const text = await readFile(join(entry.parentPath, entry.name), 'utf8');
    for (const line of text.split('\n').filter(Boolean)) out.push(parseDeadLetterLine(line).record);
  }
  return out;
}

const bigBody = (n: number) => `${n}:`.padEnd(EVENT_BYTES, String.fromCharCode(97 + n));
const delivered = (s: LimitedServer) => s.accepted.flatMap((a) => a.partitions).sort((a, b) => a - b);

/**
 * The exporter behind a batch processor that exports once six records are pending (one per partition);
 * `batches` holds the record count of each batch the exporter got.
 */
function sixAtOnce(t: TestContext, exporter: SignalConsumer): { consumer: SignalConsumer; batches: number[] } {
  const batches: number[] = [];
  const counting: SignalConsumer = {
    consume: (b: SignalBatch, s?: AbortSignal) => (batches.push(b.records.length), exporter.consume(b, s)),
  };
  const consumer = new BatchProcessor(counting, { sendBatchSize: 6, timeoutMs: 60_000 });
  t.after(() => consumer.shutdown());
  return { consumer, batches };
}

/** Six partitions, one event each; `body(p)` is partition p's. */
async function sixPartitions(t: TestContext, body: (p: number) => string) {
  const started = await startTestEmulator(t, { partitions: 6 });
  for (let p = 0; p < 6; p++) started.emulator.append(started.hubName, String(p), [{ body: body(p) }]);
  return started;
}

describe('requests bounded by bytes (emulator → receiver → otlp gRPC → a server limited to 4 MiB)', () => {
  for (const [name, section] of [
    ['default max_request_bytes (4 MiB − 64 KiB): split before sending', {}],
    ["max_request_bytes 0: the server's RESOURCE_EXHAUSTED splits the request", { max_request_bytes: 0 }],
  ] as const) {
    test(`six 900 KB events all arrive, nothing dead-lettered; ${name}`, { timeout: 60_000 }, async (t) => {
      const dir = await mkdtemp(join(tmpdir(), 'dl-size-'));
      t.after(() => rm(dir, { recursive: true, force: true }));
      const server = await startLimitedServer(t);
      const { connectionString } = await sixPartitions(t, bigBody);
      const warnings: string[] = [];
      const { consumer, batches } = sixAtOnce(t, await grpcExporter(t, server.endpoint, section, warnings));
      const receiver = startReceiver(
        t,
        { connection: connectionString, format: 'raw', start_position: 'earliest', dead_letter: { directory: dir } },
        consumer,
      );
      await receiver.start();
      await until(() => delivered(server).length >= 6, 45_000, 'six events at the server');
      await receiver.shutdown();
      assert.deepEqual(delivered(server), [0, 1, 2, 3, 4, 5]);
      assert.deepEqual(batches, [6], 'one batch of six 900 KB records (~5.4 MB) reached the exporter');
      assert.ok(server.accepted.length >= 2, `${server.accepted.length} requests`);
      for (const a of server.accepted) assert.ok(a.bytes <= FOUR_MIB, `a request of ${a.bytes} bytes`);
      assert.equal(receiver.stats().counters.eventsDeadLettered, 0);
      assert.deepEqual(await deadLetters(dir), []);
      if ('max_request_bytes' in section) {
        // The whole batch went out first, was refused for its size, and the server's limit was adopted.
        assert.deepEqual(warnings, [
          'the server refuses requests over 4194304 bytes: requests are cut to that size from now on',
        ]);
      } else assert.deepEqual(warnings, []);
      t.diagnostic(
        `requests: ${server.accepted.map((a) => `${a.partitions.length} records, ${a.bytes} bytes`).join('; ')}`,
      );
    });
  }

  test('max_request_bytes 512 KiB: the 900 KB record is dead-lettered at once with its reason, the rest of its batch ' +
    'delivered', {
    timeout: 60_000,
  }, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'dl-size-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const server = await startLimitedServer(t);
    // One batch: five small events and one of 900 KB (partition 2's).
    const { connectionString } = await sixPartitions(t, (p) => (p === 2 ? bigBody(p) : `small event ${p}`));
    const { consumer, batches } = sixAtOnce(
      t,
      await grpcExporter(t, server.endpoint, { max_request_bytes: 512 * 1024 }),
    );
    const receiver = startReceiver(
      t,
      { connection: connectionString, format: 'raw', start_position: 'earliest', dead_letter: { directory: dir } },
      consumer,
    );
    await receiver.start();
    await until(
      () => receiver.stats().counters.eventsDeadLettered === 1 && delivered(server).length === 5,
      45_000,
      'five delivered, one dead-lettered',
    );
    await receiver.shutdown();
    assert.deepEqual(batches, [6], 'the six records reached the exporter as one batch');
    assert.deepEqual(delivered(server), [0, 1, 3, 4, 5]);
    for (const a of server.accepted) assert.ok(a.bytes <= 512 * 1024, `a request of ${a.bytes} bytes`);
    const letters = await deadLetters(dir);
    assert.equal(letters.length, 1);
    assert.equal(letters[0]!.source.partition_id, '2');
    assert.equal(letters[0]!.event.sequence_number, 0);
    assert.equal(letters[0]!.error.type, 'request_too_large');
    assert.match(
      letters[0]!.error.message,
      /otlp\/limited: record of \d+ bytes is larger than max_request_bytes \(524288 bytes\)/,
    );
    const counters = receiver.stats().counters;
    assert.equal(counters.recordsRefused, 1);
    assert.equal(counters.exportHolds, 0, 'refused at once, never held or retried');
  });
});
