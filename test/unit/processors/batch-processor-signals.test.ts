import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { BatchProcessor } from '../../../src/processors/batch-processor.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import { holdEventLoopOpen, makeMixedBatch } from '../pipeline/records.ts';
import { isPartialRefusal, PartialRefusalError } from '../../../src/pipeline/partial-refusal.ts';

holdEventLoopOpen(after);

const HOUR_MS = 3_600_000;
const settleCallbacks = () => new Promise<void>((resolve) => setImmediate(resolve));

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms).unref()),
  ]);
}

/** A consumer whose exports stay in flight until the test releases them. */
function heldConsumer() {
  const started: { batch: SignalBatch; release: () => void }[] = [];
  const consumer: SignalConsumer = {
    consume: (batch) => new Promise<void>((resolve) => started.push({ batch, release: resolve })),
  };
  return { consumer, started };
}

const names = (b: SignalBatch) => [
  ...b.records.map((r) => `log:${String(r.body)}`),
  ...(b.metrics ?? []).map((p) => `point:${p.name}`),
  ...(b.spans ?? []).map((s) => `span:${s.name}`),
];

describe('BatchProcessor with metric points and spans', () => {
  test('send_batch_size counts items over all signals', async () => {
    const next = new InMemorySignalConsumer();
    const batcher = new BatchProcessor(next, { sendBatchSize: 6, timeoutMs: HOUR_MS });
    const first = batcher.consume(makeMixedBatch(1, 2, 0, 'a', '0'));
    await settleCallbacks();
    assert.equal(next.calls, 0, '3 items: below send_batch_size');
    const second = batcher.consume(makeMixedBatch(0, 1, 2, 'b', '1'));
    await within(Promise.all([first, second]), 5_000);
    assert.equal(next.calls, 1, '6 items reach send_batch_size: one export, without the timer');
    assert.deepEqual(names(next.batches[0]!), [
      'log:a-0',
      'point:a-0',
      'point:a-1',
      'point:b-0',
      'span:b-0',
      'span:b-1',
    ]);
  });

  test('metric points alone are batched, exported and resolve their caller', async () => {
    const next = new InMemorySignalConsumer();
    const batcher = new BatchProcessor(next, { timeoutMs: 0 });
    await within(batcher.consume(makeMixedBatch(0, 3, 0)), 5_000);
    assert.deepEqual(
      next.metricPoints().map((p) => p.name),
      ['m-0', 'm-1', 'm-2'],
    );
    assert.deepEqual(next.batches[0]!.records, []);
    assert.equal(next.batches[0]!.spans, undefined, 'no empty spans list is invented');
  });

  test('send_batch_max_size splits across signals in order; the caller resolves only after its last part', async () => {
    const next = heldConsumer();
    const batcher = new BatchProcessor(next.consumer, { sendBatchSize: 2, sendBatchMaxSize: 2, timeoutMs: 0 });
    let resolved = false;
    const call = batcher.consume(makeMixedBatch(1, 2, 2)).then(() => void (resolved = true));
    const parts: string[][] = [];
    for (let i = 0; i < 3; i++) {
      await settleCallbacks();
      assert.equal(next.started.length, i + 1, 'one part at a time: the next waits for the previous');
      parts.push(names(next.started[i]!.batch));
      assert.equal(resolved, false, 'not resolved while a part is outstanding');
      next.started[i]!.release();
    }
    await within(call, 5_000);
    assert.deepEqual(parts, [['log:m-0', 'point:m-0'], ['point:m-1', 'span:m-0'], ['span:m-1']]);
  });

  test(
    'a partial refusal of a combined export hands each caller the refused items that are its own, per ' + 'signal',
    async () => {
      const spanError = new Error('span refused');
      const next: SignalConsumer = {
        async consume(batch) {
          // Refuses the second caller's first span and the first caller's first point; delivers the rest.
          const span = batch.spans!.find((s) => s.name === 'b-0')!;
          const point = batch.metrics!.find((p) => p.name === 'a-0')!;
          throw new PartialRefusalError(
            [
              { records: [], spans: [span], error: spanError },
              { records: [], metrics: [point], error: new Error('point refused') },
            ],
            batch.records.length + batch.metrics!.length + batch.spans!.length - 2,
          );
        },
      };
      const batcher = new BatchProcessor(next, { timeoutMs: 10 });
      const a = makeMixedBatch(1, 2, 0, 'a', '0');
      const b = makeMixedBatch(0, 1, 2, 'b', '1');
      const [ra, rb] = await within(Promise.allSettled([batcher.consume(a), batcher.consume(b)]), 5_000);
      assert.equal(ra.status, 'rejected');
      assert.equal(rb.status, 'rejected');
      const ea = (ra as PromiseRejectedResult).reason as unknown;
      const eb = (rb as PromiseRejectedResult).reason as unknown;
      assert.ok(isPartialRefusal(ea) && isPartialRefusal(eb));
      assert.deepEqual([...ea.refusedMetrics()], [a.metrics![0]]);
      assert.equal(ea.refusedSpans().size, 0);
      assert.equal(ea.delivered, 2, 'a: one record and one point delivered');
      assert.deepEqual([...eb.refusedSpans()], [b.spans![0]]);
      assert.equal(eb.refusedMetrics().size, 0);
      assert.equal(eb.delivered, 2);
      assert.equal(eb.refusals[0]!.error, spanError);
    },
  );

  test("per-partition order holds across exports: a partition's next batch follows its previous one", async () => {
    const next = heldConsumer();
    const batcher = new BatchProcessor(next.consumer, {
      sendBatchSize: 2,
      sendBatchMaxSize: 2,
      timeoutMs: 0,
      maxConcurrentExports: 2,
    });
    const first = batcher.consume(makeMixedBatch(0, 3, 0, 'p', '0'));
    await settleCallbacks();
    assert.equal(next.started.length, 1, 'the second part of a caller never starts beside its first');
    next.started[0]!.release();
    await settleCallbacks();
    next.started[1]!.release();
    await within(first, 5_000);
    const second = batcher.consume(makeMixedBatch(0, 0, 1, 'q', '0'));
    await settleCallbacks();
    next.started[2]!.release();
    await within(second, 5_000);
    assert.deepEqual(
      next.started.map((s) => names(s.batch)),
      [['point:p-0', 'point:p-1'], ['point:p-2'], ['span:q-0']],
    );
  });
});
