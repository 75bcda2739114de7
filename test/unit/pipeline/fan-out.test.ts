import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { fanOut, FanOutError } from '../../../src/pipeline/fan-out.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import { isPermanentError } from '../../../src/component/errors.ts';
import { makeBatch } from './records.ts';
import { isPartialRefusal, PartialRefusalError } from '../../../src/pipeline/partial-refusal.ts';
import { withRetry } from '../../../src/pipeline/retry.ts';
import { fromLogRecordExporter } from '../../../src/pipeline/exporter-adapter.ts';
import type { LogRecordExporter } from '@opentelemetry/sdk-logs';
import { ExportResultCode } from '@opentelemetry/core';

/** An exporter that answers after `ms` (a network round trip): its abort listeners stay while it waits. */
function slowExporter(ms: number): LogRecordExporter & { exported: number } {
  const exporter = {
    exported: 0,
    export: (records: unknown[], done: (r: { code: ExportResultCode }) => void) => {
      setTimeout(() => {
        exporter.exported += records.length;
        done({ code: ExportResultCode.SUCCESS });
      }, ms);
    },
    shutdown: async () => {},
    forceFlush: async () => {},
  };
  return exporter;
}

describe('fanOut', () => {
  test('resolves when all consumers accepted, each got the batch', async () => {
    const a = new InMemorySignalConsumer();
    const b = new InMemorySignalConsumer();
    await fanOut([a, b]).consume(makeBatch(2));
    assert.equal(a.records().length, 2);
    assert.equal(b.records().length, 2);
  });

  test('one permanent failure while the other accepted → permanent', async () => {
    const a = new InMemorySignalConsumer();
    const b = new InMemorySignalConsumer().failNext(1, 'permanent');
    await assert.rejects(fanOut([a, b]).consume(makeBatch(1)), (e: unknown) => isPermanentError(e));
    assert.equal(a.records().length, 1);
  });

  test(
    'any retryable failure → retryable, even next to a permanent one; a retry re-sends to all ' + '(duplicate)',
    async () => {
      const a = new InMemorySignalConsumer();
      const b = new InMemorySignalConsumer().failNext(1, 'retryable');
      const c = new InMemorySignalConsumer().failNext(1, 'permanent');
      const fan = fanOut([a, b, c]);
      const error = await fan.consume(makeBatch(1)).catch((e: unknown) => e);
      assert.ok(error instanceof FanOutError);
      assert.equal(isPermanentError(error), false);
      assert.equal(error.errors.length, 2);
      await fan.consume(makeBatch(1));
      assert.equal(a.records().length, 2, 'the consumer that accepted the first time receives the batch again');
    },
  );

  test('two permanent failures → one PermanentError naming both', async () => {
    const a = new InMemorySignalConsumer().failNext(1, 'permanent');
    const b = new InMemorySignalConsumer().failNext(1, 'permanent');
    await assert.rejects(
      fanOut([a, b]).consume(makeBatch(1)),
      (e: unknown) => isPermanentError(e) && /2 of 2/.test((e as Error).message),
    );
  });

  test('two consumers each refusing some records → one PartialRefusalError with both refusals', async () => {
    const batch = makeBatch(4);
    const refusing = (index: number, reason: string) => ({
      consume: async () => {
        throw new PartialRefusalError([{ records: [batch.records[index]!], error: new Error(reason) }], 3);
      },
    });
    const error = await fanOut([refusing(1, 'too large for A'), refusing(3, 'too large for B')])
      .consume(batch)
      .catch((e: unknown) => e);
    assert.ok(isPartialRefusal(error));
    assert.deepEqual(
      error.refusals.map((r) => [r.records[0]!.body, r.error.message]),
      [
        ['r-1', 'too large for A'],
        ['r-3', 'too large for B'],
      ],
    );
    assert.ok(isPermanentError(error));
  });

  test('forwards forceFlush and shutdown to all', async () => {
    const a = new InMemorySignalConsumer();
    const b = new InMemorySignalConsumer();
    const fan = fanOut([a, b]);
    await fan.shutdown!();
    await assert.rejects(a.consume(makeBatch(1)), (e: unknown) => isPermanentError(e));
    await assert.rejects(b.consume(makeBatch(1)), (e: unknown) => isPermanentError(e));
  });

  test(
    'nine exporters with retry on one pipeline: no MaxListenersExceededWarning, and an abort still reaches ' + 'each',
    async () => {
      const warnings: Error[] = [];
      const onWarning = (w: Error) => warnings.push(w);
      process.on('warning', onWarning);
      try {
        const exporters = Array.from({ length: 9 }, () => slowExporter(20));
        // As the service builds it: each exporter with its own retry, the receiver's retry around the fan-out.
        const pipeline = withRetry(fanOut(exporters.map((e) => withRetry(fromLogRecordExporter(e)))));
        const controller = new AbortController();
        await pipeline.consume(makeBatch(2), controller.signal);
        assert.deepEqual(
          exporters.map((e) => e.exported),
          Array(9).fill(2),
        );
        const reason = new Error('partition lost');
        const aborted = pipeline.consume(makeBatch(1), controller.signal);
        controller.abort(reason);
        await assert.rejects(aborted, (e: unknown) => e === reason);
        // Warnings are emitted on the next tick.
        await new Promise((resolve) => setImmediate(resolve));
        assert.deepEqual(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map(String), []);
      } finally {
        process.off('warning', onWarning);
      }
    },
  );
});
