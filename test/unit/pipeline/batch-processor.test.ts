import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { BatchProcessor, batchProcessorConfigSchema } from '../../../src/pipeline/batch-processor.ts';
import { InMemoryLogsConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import type { LogsConsumer } from '../../../src/pipeline/consumer.ts';
import type { LogBatch } from '../../../src/pipeline/log-batch.ts';
import { holdEventLoopOpen, makeBatch } from './records.ts';

holdEventLoopOpen(after);

/** Rejects if `promise` has not settled within `ms` (so a missing trigger fails instead of hanging). */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms).unref())]);
}

describe('BatchProcessor', () => {
  test('two concurrent callers from two partitions share one export; each resolves after it', async () => {
    const next = new InMemoryLogsConsumer({ delayMs: 20 });
    const batcher = new BatchProcessor(next, { timeoutMs: 30 });
    const a = batcher.consume(makeBatch(3, 'a', '0')).then(() => next.batches.length);
    const b = batcher.consume(makeBatch(2, 'b', '1')).then(() => next.batches.length);
    assert.deepEqual(await within(Promise.all([a, b]), 5_000), [1, 1], 'each caller resolved only after the export was accepted');
    assert.equal(next.calls, 1);
    assert.deepEqual(next.records().map((r) => r.body), ['a-0', 'a-1', 'a-2', 'b-0', 'b-1']);
    assert.equal(next.batches[0]!.source.partitionId, '0,1');
  });

  test("a failed export rejects every caller that was part of it, with that export's error", async () => {
    const next = new InMemoryLogsConsumer().failNext(1, 'permanent');
    const batcher = new BatchProcessor(next, { timeoutMs: 20 });
    const results = await within(Promise.allSettled([batcher.consume(makeBatch(1, 'a', '0')), batcher.consume(makeBatch(1, 'b', '1'))]), 5_000);
    assert.equal(next.calls, 1);
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      assert.match(String((r as PromiseRejectedResult).reason), /scripted permanent failure/);
    }
  });

  test('send_batch_size triggers an export without waiting for the timeout', async () => {
    const next = new InMemoryLogsConsumer();
    const batcher = new BatchProcessor(next, { sendBatchSize: 4, timeoutMs: 60_000 });
    const first = batcher.consume(makeBatch(2, 'a'));
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(next.calls, 0, 'below send_batch_size: still waiting');
    await within(Promise.all([first, batcher.consume(makeBatch(2, 'b'))]), 2_000);
    assert.equal(next.calls, 1);
    assert.equal(next.records().length, 4);
  });

  test('send_batch_max_size splits a large batch; the caller resolves after all parts', async () => {
    const next = new InMemoryLogsConsumer();
    const batcher = new BatchProcessor(next, { sendBatchSize: 3, sendBatchMaxSize: 3, timeoutMs: 10 });
    await within(batcher.consume(makeBatch(7)), 5_000);
    assert.deepEqual(next.batches.map((b) => b.records.length), [3, 3, 1]);
  });

  test('a failure of any part of a split batch rejects its caller', async () => {
    const next = new InMemoryLogsConsumer();
    let call = 0;
    const failingSecond: LogsConsumer = {
      consume(batch: LogBatch, signal?: AbortSignal) {
        call++;
        return call === 2 ? Promise.reject(new Error('503 on part 2')) : next.consume(batch, signal);
      },
    };
    const batcher = new BatchProcessor(failingSecond, { sendBatchSize: 2, sendBatchMaxSize: 2, timeoutMs: 10 });
    await assert.rejects(within(batcher.consume(makeBatch(6)), 5_000), /503 on part 2/);
  });

  test('one export at a time: callers arriving meanwhile wait and go in the next export', async () => {
    let active = 0;
    let maxActive = 0;
    const sizes: number[] = [];
    const slow: LogsConsumer = {
      async consume(batch) {
        active++;
        maxActive = Math.max(maxActive, active);
        sizes.push(batch.records.length);
        await new Promise((r) => setTimeout(r, 30));
        active--;
      },
    };
    const batcher = new BatchProcessor(slow, { sendBatchSize: 1, timeoutMs: 0 });
    await within(Promise.all([1, 2, 3, 4].map((i) => batcher.consume(makeBatch(1, `c${i}`, String(i))))), 5_000);
    assert.equal(maxActive, 1);
    assert.deepEqual(sizes, [1, 3], 'the three callers that waited were combined');
  });

  test('an aborted caller is rejected and its pending records are never exported', async () => {
    const next = new InMemoryLogsConsumer();
    const batcher = new BatchProcessor(next, { timeoutMs: 60_000 });
    const controller = new AbortController();
    const pending = batcher.consume(makeBatch(2, 'gone'), controller.signal);
    controller.abort(new Error('partition lost'));
    await assert.rejects(pending, /partition lost/);
    const kept = batcher.consume(makeBatch(1, 'kept'));
    await batcher.forceFlush();
    await kept;
    assert.deepEqual(next.records().map((r) => r.body), ['kept-0']);
  });

  test('shutdown exports what is pending, then refuses new batches and shuts the next consumer down', async () => {
    const next = new InMemoryLogsConsumer();
    const batcher = new BatchProcessor(next, { timeoutMs: 60_000 });
    const pending = batcher.consume(makeBatch(2));
    await within(batcher.shutdown(), 2_000);
    await pending;
    assert.equal(next.records().length, 2);
    await assert.rejects(batcher.consume(makeBatch(1)), /shut down/);
    await assert.rejects(next.consume(makeBatch(1)), /shut down/);
  });

  test('config schema: collector defaults, durations, max ≥ size', () => {
    assert.deepEqual(batchProcessorConfigSchema.parse({}), { send_batch_size: 8192, send_batch_max_size: 0, timeout: 200 });
    assert.equal(batchProcessorConfigSchema.parse({ timeout: '1s' }).timeout, 1_000);
    assert.equal(batchProcessorConfigSchema.safeParse({ send_batch_size: 100, send_batch_max_size: 10 }).success, false);
    assert.equal(batchProcessorConfigSchema.safeParse({ sendBatchSize: 100 }).success, false);
  });
});
