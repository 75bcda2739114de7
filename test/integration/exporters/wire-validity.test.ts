/**
 * Hostile values from events in the emulator, through the receiver, out of every exporter that writes OTLP:
 * `otlphttp` JSON, `otlphttp` proto, `otlp` gRPC, and `file` (JSON lines and proto). Each request or line is
 * decoded by an independent strict decoder (test/helpers/otlp-strict.ts: protobufjs with the
 * opentelemetry-proto messages; a strict OTLP/JSON check), which must accept it, and every encoding must
 * carry the same content.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server, ServerCredentials, status, type ServerUnaryCall, type sendUnaryData } from '@grpc/grpc-js';
import { noopLogger } from '../../../src/component/logger.ts';
import {
  fileExporterFactory,
  otlpGrpcExporterFactory,
  otlpHttpExporterFactory,
} from '../../../src/exporters/factories.ts';
import { fileExporterConfigSchema } from '../../../src/exporters/file-exporter.ts';
import { otlpGrpcExporterConfigSchema } from '../../../src/exporters/otlp-grpc-exporter.ts';
import { otlpHttpExporterConfigSchema } from '../../../src/exporters/otlp-http-exporter.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import { fanOut } from '../../../src/pipeline/fan-out.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { strictDecodeJson, strictDecodeProto } from '../../helpers/otlp-strict.ts';
import { startReceiver, until } from '../receiver/harness.ts';
import { startOtlpServer } from './otlp-server.ts';

const EXPORT_PATH = '/opentelemetry.proto.collector.logs.v1.LogsService/Export';
const identity = (b: Buffer) => b;
const RETRY = { initial_interval: '10ms', max_interval: '50ms', max_elapsed_time: '10s' };
const MEGABYTE_MESSAGE = 'x'.repeat(1024 * 1024);

// The event texts are written by hand: JSON.stringify cannot write 1e20 or 9007199254740993 as literals,
// and the lone surrogates must arrive as JSON escapes (the bytes on the hub are valid UTF-8).
const HOSTILE_EVENTS = [
  '{"records":[{"time":"2024-05-14T09:30:00Z","category":"Hostile","operationName":"values","properties":{' +
    '"e20":100000000000000000000,"over":9223372036854776000,"exact":9007199254740993,"negExact":-9007199254740993,' +
    '"nan":"NaN","inf":"Infinity","lone":"a\\ud83d","k\\udc00":"key with a lone low ' +
    'surrogate","pair":"\\ud83d\\ude00"}}]}',
  '{"records":[{"time":"1601-01-01T00:00:00Z","category":"Hostile","operationName":"windows-zero-filetime"}]}',
  '{"records":[{"time":"3000-01-01T00:00:00Z","category":"Hostile","operationName":"far-future"}]}',
  `{"records":[{"time":"2024-05-14T09:30:01Z","category":"Hostile","operationName":"megabyte",` +
    `"resultDescription":"${MEGABYTE_MESSAGE}"}]}`,
];

/** Every log record of a canonical request, in order. */
const recordsOf = (request: any): any[] =>
  (request.resourceLogs ?? []).flatMap((rl: any) => (rl.scopeLogs ?? []).flatMap((sl: any) => sl.logRecords ?? []));

/** Every value named `key` anywhere in a record's attributes and body (key-value lists, nested). */
function valuesNamed(record: any, key: string): any[] {
  const found: any[] = [];
  const walk = (kvs: any[] | undefined) => {
    for (const kv of kvs ?? []) {
      if (kv.key === key) found.push(kv.value);
      visit(kv.value);
    }
  };
  const visit = (v: any) => {
    if (v?.kvlistValue) walk(v.kvlistValue.values);
    for (const item of v?.arrayValue?.values ?? []) visit(item);
  };
  walk(record.attributes);
  visit(record.body);
  return found;
}

const stringValues = (record: any): string[] => {
  const out: string[] = [];
  const visit = (v: any) => {
    if (typeof v?.stringValue === 'string') out.push(v.stringValue);
    for (const kv of v?.kvlistValue?.values ?? []) visit(kv.value);
    for (const item of v?.arrayValue?.values ?? []) visit(item);
  };
  for (const kv of record.attributes ?? []) visit(kv.value);
  visit(record.body);
  return out;
};

describe('valid OTLP on every wire for hostile values', () => {
  test('otlphttp json and proto, otlp gRPC and file: every request strict-valid, the same content in all', {
    timeout: 90_000,
  }, async (t) => {
    const http = await startOtlpServer();
    t.after(() => http.close());
    const grpcBodies: Buffer[] = [];
    const grpcServer = new Server({ 'grpc.max_receive_message_length': 64 * 1024 * 1024 });
    grpcServer.addService(
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
          grpcBodies.push(call.request);
          try {
            strictDecodeProto(call.request);
            callback(null, Buffer.alloc(0));
          } catch (error) {
            callback({ code: status.INVALID_ARGUMENT, details: String(error) }); // as a strict collector would
          }
        },
      },
    );
    const port = await new Promise<number>((resolve, reject) =>
      grpcServer.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    t.after(() => new Promise<void>((resolve) => grpcServer.tryShutdown(() => resolve())));
    const dir = await mkdtemp(join(tmpdir(), 'wire-validity-'));
    t.after(() => rm(dir, { recursive: true, force: true }));

    const settings = (id: string) => ({ id, logger: noopLogger });
    const exporters: SignalConsumer[] = [
      await otlpHttpExporterFactory.create(
        settings('otlphttp/json'),
        otlpHttpExporterConfigSchema.parse({ endpoint: http.url, encoding: 'json', retry_on_failure: RETRY }),
      ),
      await otlpHttpExporterFactory.create(
        settings('otlphttp/proto'),
        otlpHttpExporterConfigSchema.parse({
          endpoint: http.url,
          encoding: 'proto',
          compression: 'none',
          retry_on_failure: RETRY,
        }),
      ),
      await otlpGrpcExporterFactory.create(
        settings('otlp'),
        otlpGrpcExporterConfigSchema.parse({
          endpoint: `127.0.0.1:${port}`,
          tls: { insecure: true },
          retry_on_failure: RETRY,
        }),
      ),
      await fileExporterFactory.create(
        settings('file/json'),
        fileExporterConfigSchema.parse({ path: join(dir, 'logs.jsonl'), sync: false }),
      ),
      await fileExporterFactory.create(
        settings('file/proto'),
        fileExporterConfigSchema.parse({ path: join(dir, 'logs.bin'), format: 'proto', sync: false }),
      ),
    ];
    t.after(async () => {
      for (const e of exporters) await e.shutdown?.();
    });

    const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: 1 });
    emulator.append(
      hubName,
      '0',
      HOSTILE_EVENTS.map((body) => ({ body })),
    );
    const startedMs = Date.now();
    const receiver = startReceiver(
      t,
      { connection: connectionString, format: 'azure', start_position: 'earliest' },
      fanOut(exporters),
    );
    await receiver.start();
    const expected = HOSTILE_EVENTS.length;
    const isJson = (r: { headers: Record<string, unknown> }) =>
      String(r.headers['content-type']).startsWith('application/json');
    const count = (bodies: Buffer[], decode: (b: Buffer) => any) =>
      bodies.reduce((n, b) => n + recordsOf(decode(b)).length, 0);
    await until(
      () => receiver.stats().counters.recordsAccepted >= expected,
      60_000,
      'every record accepted by the fan-out',
    );
    await receiver.shutdown();
    assert.equal(receiver.stats().counters.eventsDeadLettered, 0);

    // Every request, through the strict decoders (a refusal throws here).
    const httpJson = http.requests.filter(isJson).map((r) => strictDecodeJson(r.body));
    const httpProto = http.requests.filter((r) => !isJson(r)).map((r) => strictDecodeProto(r.body));
    const grpc = grpcBodies.map((b) => strictDecodeProto(b));
    const fileJson = (await readFile(join(dir, 'logs.jsonl')))
      .toString('latin1')
      .trimEnd()
      .split('\n')
      .map((line) => strictDecodeJson(Buffer.from(line, 'latin1')));
    const fileBytes = await readFile(join(dir, 'logs.bin'));
    const fileProto: any[] = [];
    for (let at = 0; at < fileBytes.length; at += 4 + fileBytes.readUInt32BE(at)) {
      fileProto.push(strictDecodeProto(fileBytes.subarray(at + 4, at + 4 + fileBytes.readUInt32BE(at))));
    }
    assert.ok(http.requests.every((r) => r.path === '/v1/logs'));
    assert.equal(count(grpcBodies, strictDecodeProto), expected, 'gRPC: every record, each once');

    const reference = httpProto.flatMap(recordsOf);
    assert.equal(reference.length, expected);
    for (const [name, requests] of Object.entries({ httpJson, grpc, fileJson, fileProto })) {
      assert.deepEqual(requests.flatMap(recordsOf), reference, `${name}: the same records as otlphttp proto`);
    }

    const [values, ancient, future, megabyte] = reference;
    const only = (record: any, key: string) => {
      const found = valuesNamed(record, key);
      assert.equal(found.length, 1, `one value named ${key}`);
      return found[0];
    };
    assert.deepEqual(only(values, 'e20'), { doubleValue: 1e20 }, 'outside int64: a double');
    assert.deepEqual(only(values, 'over'), { doubleValue: 2 ** 63 }, '9223372036854776000 is 2^63: a double');
    assert.deepEqual(only(values, 'exact'), { stringValue: '9007199254740993' }, '2^53 + 1 keeps its digits');
    assert.deepEqual(only(values, 'negExact'), { stringValue: '-9007199254740993' });
    assert.deepEqual(only(values, 'nan'), { stringValue: 'NaN' }, 'NaN-like strings stay strings');
    assert.deepEqual(only(values, 'inf'), { stringValue: 'Infinity' });
    assert.deepEqual(only(values, 'lone'), { stringValue: 'a\ufffd' }, 'a lone surrogate becomes U+FFFD');
    assert.deepEqual(only(values, 'k\ufffd'), { stringValue: 'key with a lone low surrogate' }, 'in keys too');
    assert.deepEqual(only(values, 'pair'), { stringValue: '😀' }, 'a surrogate pair is kept');
    for (const [record, text] of [
      [ancient, '1601-01-01T00:00:00Z'],
      [future, '3000-01-01T00:00:00Z'],
    ] as const) {
      const nanos = BigInt(record.timeUnixNano);
      assert.ok(
        nanos >= BigInt(startedMs - 60_000) * 1_000_000n && nanos <= BigInt(Date.now()) * 1_000_000n,
        `${text}: the enqueued time`,
      );
      assert.deepEqual(only(record, 'azure.timestamp.fallback'), { stringValue: 'unparsable' });
      assert.ok(stringValues(record).includes(text), `${text}: the original text is kept`);
    }
    assert.equal(values.timeUnixNano, String(BigInt(Date.parse('2024-05-14T09:30:00Z')) * 1_000_000n));
    assert.ok(
      stringValues(megabyte).some((s) => s === MEGABYTE_MESSAGE),
      'the 1 MB text arrives whole',
    );
  });
});
