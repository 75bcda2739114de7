import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryLogRecordExporter, type LogRecordExporter, type ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPExporterError } from '@opentelemetry/otlp-exporter-base';
import { fromLogRecordExporter, ExportTimeoutError } from '../../../src/pipeline/exporter-adapter.ts';
import { isPermanentError, PermanentError } from '../../../src/component/errors.ts';
import { holdEventLoopOpen, makeBatch } from './records.ts';
import { Metadata } from '@grpc/grpc-js';
import { isRequestTooLarge } from '../../../src/pipeline/partial-refusal.ts';

holdEventLoopOpen(after);

/** An exporter that answers each export with the next scripted result (or never, for `hang`). */
function scripted(
  results: (ExportResult | 'hang' | 'throw')[],
): LogRecordExporter & { exported: ReadableLogRecord[][]; flushed: number; shutdowns: number } {
  const exporter = {
    exported: [] as ReadableLogRecord[][],
    flushed: 0,
    shutdowns: 0,
    export(logs: ReadableLogRecord[], cb: (r: ExportResult) => void) {
      exporter.exported.push(logs);
      const next = results.shift() ?? { code: ExportResultCode.SUCCESS };
      if (next === 'hang') return;
      if (next === 'throw') throw new TypeError('cannot serialize BigInt');
      setImmediate(() => cb(next));
    },
    async forceFlush() {
      exporter.flushed++;
    },
    async shutdown() {
      exporter.shutdowns++;
    },
  };
  return exporter;
}

const failed = (error: Error): ExportResult => ({ code: ExportResultCode.FAILED, error });

describe('fromLogRecordExporter', () => {
  test('resolves after the real InMemoryLogRecordExporter accepted the records', async () => {
    const exporter = new InMemoryLogRecordExporter();
    const consumer = fromLogRecordExporter(exporter);
    await consumer.consume(makeBatch(3));
    assert.deepEqual(
      exporter.getFinishedLogRecords().map((r) => r.body),
      ['r-0', 'r-1', 'r-2'],
    );
  });

  const cases: [string, ExportResult | 'throw', boolean][] = [
    ['HTTP 400', failed(new OTLPExporterError('Bad Request', 400, '')), true],
    ['HTTP 413', failed(new OTLPExporterError('Payload Too Large', 413, '')), true],
    ['HTTP 408', failed(new OTLPExporterError('Request Timeout', 408, '')), false],
    ['HTTP 429', failed(new OTLPExporterError('Too Many Requests', 429, '')), false],
    ['HTTP 500', failed(new OTLPExporterError('Internal Server Error', 500, '')), false],
    ['OTLP retryable status without code', failed(new OTLPExporterError('Export failed with retryable status')), false],
    [
      'ECONNREFUSED',
      failed(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })),
      false,
    ],
    ['a PermanentError', failed(new PermanentError('nope')), true],
    [
      'gRPC INVALID_ARGUMENT',
      failed(Object.assign(new Error('3 INVALID_ARGUMENT: bad'), { code: 3, details: 'bad', metadata: {} })),
      true,
    ],
    [
      'gRPC UNAVAILABLE',
      failed(Object.assign(new Error('14 UNAVAILABLE: down'), { code: 14, details: 'down', metadata: {} })),
      false,
    ],
    ['a synchronous throw (serialization)', 'throw', true],
  ];
  for (const [name, result, permanent] of cases) {
    test(`${name} → ${permanent ? 'permanent' : 'retryable'}`, async () => {
      const consumer = fromLogRecordExporter(scripted([result]));
      const error = await consumer.consume(makeBatch(1)).then(
        () => assert.fail('expected a rejection'),
        (e: unknown) => e,
      );
      assert.equal(isPermanentError(error), permanent, String(error));
    });
  }

  const grpcError = (code: number, details: string, metadata: Metadata) =>
    Object.assign(new Error(`${code} ${details}`), { code, details, metadata });
  const withRetryInfo = new Metadata();
  // google.rpc.Status{code: 8, details: [Any{type_url: type.googleapis.com/google.rpc.RetryInfo}]}, serialized.
  withRetryInfo.set(
    'grpc-status-details-bin',
    Buffer.from('\x08\x08\x1a\x2b\x0a\x29type.googleapis.com/google.rpc.RetryInfo', 'latin1'),
  );
  const tooLargeCases: [string, Error, number | undefined][] = [
    ['HTTP 413', new OTLPExporterError('Payload Too Large', 413, ''), undefined],
    [
      'gRPC RESOURCE_EXHAUSTED (grpc-go wording)',
      grpcError(8, 'grpc: received message larger than max (10800000 vs. 4194304)', new Metadata()),
      4_194_304,
    ],
    [
      'gRPC RESOURCE_EXHAUSTED (grpc-js, after decompression)',
      grpcError(8, 'Received message that decompresses to a size larger than 4194304', new Metadata()),
      4_194_304,
    ],
    ['gRPC RESOURCE_EXHAUSTED naming no limit', grpcError(8, 'quota', new Metadata()), undefined],
  ];
  for (const [name, error, limit] of tooLargeCases) {
    test(`${name} → RequestTooLargeError (permanent for these bytes), limit ${limit ?? 'unknown'}`, async () => {
      const rejected = await fromLogRecordExporter(scripted([failed(error)]))
        .consume(makeBatch(1))
        .catch((e: unknown) => e);
      assert.ok(isRequestTooLarge(rejected), String(rejected));
      assert.ok(isPermanentError(rejected));
      assert.equal(rejected.limitBytes, limit);
      assert.equal(rejected.cause, error);
    });
  }

  test('gRPC RESOURCE_EXHAUSTED with RetryInfo stays retryable', async () => {
    const rejected = await fromLogRecordExporter(scripted([failed(grpcError(8, 'slow down', withRetryInfo))]))
      .consume(makeBatch(1))
      .catch((e: unknown) => e);
    assert.equal(isPermanentError(rejected), false, String(rejected));
    assert.equal(isRequestTooLarge(rejected), false);
  });

  test('a missing callback times out as a retryable ExportTimeoutError', async () => {
    const consumer = fromLogRecordExporter(scripted(['hang']), { timeoutMs: 30 });
    await assert.rejects(
      consumer.consume(makeBatch(1)),
      (e: unknown) => e instanceof ExportTimeoutError && !isPermanentError(e),
    );
  });

  test('an abort rejects at once with the signal reason', async () => {
    const consumer = fromLogRecordExporter(scripted(['hang']), { timeoutMs: 60_000 });
    const controller = new AbortController();
    const pending = consumer.consume(makeBatch(1), controller.signal);
    const reason = new Error('stop');
    controller.abort(reason);
    await assert.rejects(pending, (e: unknown) => e === reason);
  });

  test('an already aborted signal never reaches the exporter', async () => {
    const exporter = scripted([]);
    await assert.rejects(fromLogRecordExporter(exporter).consume(makeBatch(1), AbortSignal.abort(new Error('x'))));
    assert.equal(exporter.exported.length, 0);
  });

  test('an empty batch resolves without an export', async () => {
    const exporter = scripted([]);
    await fromLogRecordExporter(exporter).consume(makeBatch(0));
    assert.equal(exporter.exported.length, 0);
  });

  test('forwards forceFlush and shutdown (shutdown once)', async () => {
    const exporter = scripted([]);
    const consumer = fromLogRecordExporter(exporter);
    await consumer.forceFlush!();
    await consumer.shutdown!();
    await consumer.shutdown!();
    assert.equal(exporter.flushed, 1);
    assert.equal(exporter.shutdowns, 1);
  });
});
