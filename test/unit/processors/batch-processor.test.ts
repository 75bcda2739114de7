import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { BatchProcessor } from '../../../src/processors/batch-processor.ts';
import { batchProcessorConfigSchema } from '../../../src/processors/batch-processor-config.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import { fanOut } from '../../../src/pipeline/fan-out.ts';
import { withRetry } from '../../../src/pipeline/retry.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import { holdEventLoopOpen, makeBatch } from '../pipeline/records.ts';
import { isPartialRefusal, PartialRefusalError } from '../../../src/pipeline/partial-refusal.ts';

holdEventLoopOpen(after);

/** Rejects if `promise` has not settled within `ms` (so a missing trigger fails instead of hanging). */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms).unref()),
  ]);
}

/** So long that a test paced by the timer would fail on `within` instead of passing. */
const HOUR_MS = 3_600_000;

/** Lets every pending callback run (promise reactions, then one macrotask turn): "nothing else happens". */
const settleCallbacks = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A consumer whose exports stay in flight until the test releases them, one by one. */
function heldConsumer() {
  const started: { batch: SignalBatch; release: () => void }[] = [];
  const consumer: SignalConsumer = {
    consume: (batch) => new Promise<void>((resolve) => started.push({ batch, release: resolve })),
  };
  return { consumer, started, bodies: (i: number) => started[i]!.batch.records.map((r) => r.body) };
}

describe('BatchProcessor', () => {
  test('two concurrent callers from two partitions share one export; each resolves after it', async () => {
    const next = new InMemorySignalConsumer({ delayMs: 20 });
    const batcher = new BatchProcessor(next, { timeoutMs: 30 });
    const a = batcher.consume(makeBatch(3, 'a', '0')).then(() => next.batches.length);
    const b = batcher.consume(makeBatch(2, 'b', '1')).then(() => next.batches.length);
    assert.deepEqual(
      await within(Promise.all([a, b]), 5_000),
      [1, 1],
      'each caller resolved only after the export was accepted',
    );
    assert.equal(next.calls, 1);
    assert.deepEqual(
      next.records().map((r) => r.body),
      ['a-0', 'a-1', 'a-2', 'b-0', 'b-1'],
    );
    assert.equal(next.batches[0]!.source.partitionId, '0,1');
  });

  test("a failed export rejects every caller that was part of it, with that export's error", async () => {
    const next = new InMemorySignalConsumer().failNext(1, 'permanent');
    const batcher = new BatchProcessor(next, { timeoutMs: 20 });
    const results = await within(
      Promise.allSettled([batcher.consume(makeBatch(1, 'a', '0')), batcher.consume(makeBatch(1, 'b', '1'))]),
      5_000,
    );
    assert.equal(next.calls, 1);
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      assert.match(String((r as PromiseRejectedResult).reason), /scripted permanent failure/);
    }
  });

  test(
    'a partial refusal of a combined export: only the caller owning the refused record rejects, with just that ' +
      'record',
    async () => {
      const tooLarge = new Error('record too large');
      const next: SignalConsumer = {
        consume: async (batch) => {
          const refused = batch.records.filter((r) => r.body === 'b-1');
          if (refused.length > 0)
            throw new PartialRefusalError([{ records: refused, error: tooLarge }], batch.records.length - 1);
        },
      };
      const batcher = new BatchProcessor(next, { timeoutMs: 20 });
      const [a, b] = await within(
        Promise.allSettled([batcher.consume(makeBatch(3, 'a', '0')), batcher.consume(makeBatch(2, 'b', '1'))]),
        5_000,
      );
      assert.equal(a!.status, 'fulfilled', 'the caller whose records were all delivered resolves');
      assert.equal(b!.status, 'rejected');
      const error = (b as PromiseRejectedResult).reason;
      assert.ok(isPartialRefusal(error));
      assert.deepEqual(
        error.refusals.map((r) => [r.records.map((x) => x.body), r.error]),
        [[['b-1'], tooLarge]],
      );
      assert.equal(error.delivered, 1);
    },
  );

  test('send_batch_size triggers an export without waiting for the timeout', async () => {
    const next = new InMemorySignalConsumer();
    const batcher = new BatchProcessor(next, { sendBatchSize: 4, timeoutMs: 60_000 });
    const first = batcher.consume(makeBatch(2, 'a'));
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(next.calls, 0, 'below send_batch_size: still waiting');
    await within(Promise.all([first, batcher.consume(makeBatch(2, 'b'))]), 2_000);
    assert.equal(next.calls, 1);
    assert.equal(next.records().length, 4);
  });

  test('send_batch_max_size splits a large batch; the caller resolves after all parts', async () => {
    const next = new InMemorySignalConsumer();
    const batcher = new BatchProcessor(next, { sendBatchSize: 3, sendBatchMaxSize: 3, timeoutMs: 10 });
    await within(batcher.consume(makeBatch(7)), 5_000);
    assert.deepEqual(
      next.batches.map((b) => b.records.length),
      [3, 3, 1],
    );
  });

  test('a failure of any part of a split batch rejects its caller', async () => {
    const next = new InMemorySignalConsumer();
    let call = 0;
    const failingSecond: SignalConsumer = {
      consume(batch: SignalBatch, signal?: AbortSignal) {
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
    const slow: SignalConsumer = {
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
    const next = new InMemorySignalConsumer();
    const batcher = new BatchProcessor(next, { timeoutMs: 60_000 });
    const controller = new AbortController();
    const pending = batcher.consume(makeBatch(2, 'gone'), controller.signal);
    controller.abort(new Error('partition lost'));
    await assert.rejects(pending, /partition lost/);
    const kept = batcher.consume(makeBatch(1, 'kept'));
    await batcher.forceFlush();
    await kept;
    assert.deepEqual(
      next.records().map((r) => r.body),
      ['kept-0'],
    );
  });

  test('shutdown exports what is pending, then refuses new batches and shuts the next consumer down', async () => {
    const next = new InMemorySignalConsumer();
    const batcher = new BatchProcessor(next, { timeoutMs: 60_000 });
    const pending = batcher.consume(makeBatch(2));
    await within(batcher.shutdown(), 2_000);
    await pending;
    assert.equal(next.records().length, 2);
    await assert.rejects(batcher.consume(makeBatch(1)), /shut down/);
    await assert.rejects(next.consume(makeBatch(1)), /shut down/);
  });

  test('config schema: collector defaults, durations, max ≥ size', () => {
    assert.deepEqual(batchProcessorConfigSchema.parse({}), {
      send_batch_size: 8192,
      send_batch_max_size: 0,
      timeout: 200,
      max_concurrent_exports: 1,
    });
    assert.equal(batchProcessorConfigSchema.parse({ max_concurrent_exports: 4 }).max_concurrent_exports, 4);
    assert.equal(batchProcessorConfigSchema.safeParse({ max_concurrent_exports: 0 }).success, false);
    assert.equal(batchProcessorConfigSchema.safeParse({ max_concurrent_exports: 1.5 }).success, false);
    assert.equal(batchProcessorConfigSchema.parse({ timeout: '1s' }).timeout, 1_000);
    assert.equal(
      batchProcessorConfigSchema.safeParse({ send_batch_size: 100, send_batch_max_size: 10 }).success,
      false,
    );
    assert.equal(batchProcessorConfigSchema.safeParse({ sendBatchSize: 100 }).success, false);
  });

  test(
    'once every attached producer is waiting, their records go at once in one export, not at the ' + 'timeout',
    async () => {
      const next = new InMemorySignalConsumer();
      const batcher = new BatchProcessor(next, { timeoutMs: HOUR_MS });
      const detach = [0, 1, 2].map(() => batcher.attachProducer());
      const a = batcher.consume(makeBatch(2, 'a', '0'));
      const b = batcher.consume(makeBatch(2, 'b', '1'));
      await settleCallbacks();
      assert.equal(next.calls, 0, 'the third producer may still send: keep batching');
      const c = batcher.consume(makeBatch(2, 'c', '2'));
      await within(Promise.all([a, b, c]), 5_000);
      assert.equal(next.calls, 1);
      assert.deepEqual(
        next.records().map((r) => r.body),
        ['a-0', 'a-1', 'b-0', 'b-1', 'c-0', 'c-1'],
      );
      for (const d of detach) d();
    },
  );

  test('while an export runs, a second slot waits for a batch from every producer, not for the first one', async () => {
    const held = heldConsumer();
    const batcher = new BatchProcessor(held.consumer, { timeoutMs: HOUR_MS, maxConcurrentExports: 2 });
    const detach = [0, 1, 2].map(() => batcher.attachProducer());
    const first = ['a', 'b', 'c'].map((p, i) => batcher.consume(makeBatch(2, `${p}1`, String(i))));
    await settleCallbacks();
    assert.equal(held.started.length, 1, 'every producer waits: the first export leaves');
    // Each producer hands its next batch while the first export runs (max_batches_in_flight 2).
    const second = [batcher.consume(makeBatch(2, 'a2', '0'))];
    await settleCallbacks();
    assert.equal(held.started.length, 1, 'one batch of three producers: the free slot keeps batching');
    second.push(batcher.consume(makeBatch(2, 'b2', '1')), batcher.consume(makeBatch(2, 'c2', '2')));
    await settleCallbacks();
    assert.equal(held.started.length, 2, 'a batch from every producer: the second slot leaves at once');
    assert.deepEqual(held.bodies(1), ['a2-0', 'a2-1', 'b2-0', 'b2-1', 'c2-0', 'c2-1']);
    for (const s of held.started) s.release();
    await within(Promise.all([...first, ...second]), 5_000);
    for (const d of detach) d();
  });

  test('a producer detaching makes the callers still waiting enough: they are exported at once', async () => {
    const next = new InMemorySignalConsumer();
    const batcher = new BatchProcessor(next, { timeoutMs: HOUR_MS });
    const [detachA, detachB, detachGone] = [0, 1, 2].map(() => batcher.attachProducer());
    const waiting = Promise.all([batcher.consume(makeBatch(1, 'a', '0')), batcher.consume(makeBatch(1, 'b', '1'))]);
    await settleCallbacks();
    assert.equal(next.calls, 0);
    detachGone!();
    detachGone!(); // a second call must not count as another producer leaving
    await within(waiting, 5_000);
    assert.equal(next.records().length, 2);

    // Two producers remain: one caller alone is not enough; with both it goes.
    const a = batcher.consume(makeBatch(1, 'a2', '0'));
    await settleCallbacks();
    assert.equal(next.calls, 1, 'the second detach above was ignored: two producers are still attached');
    await within(Promise.all([a, batcher.consume(makeBatch(1, 'b2', '1'))]), 5_000);
    assert.equal(next.calls, 2);
    detachA!();
    detachB!();
  });

  test('with no producer attached the timer paces exports, as before', async () => {
    const next = new InMemorySignalConsumer();
    const batcher = new BatchProcessor(next, { timeoutMs: HOUR_MS });
    const pending = [0, 1, 2, 3].map((i) => batcher.consume(makeBatch(1, `c${i}`, String(i))));
    await settleCallbacks();
    assert.equal(next.calls, 0, 'below send_batch_size and no producer announced: waits for the timeout');
    await batcher.forceFlush();
    await Promise.all(pending);
    assert.equal(next.calls, 1);

    const timed = new InMemorySignalConsumer();
    const short = new BatchProcessor(timed, { timeoutMs: 20 });
    await within(short.consume(makeBatch(1)), 5_000);
    assert.equal(timed.calls, 1, 'the timeout alone exports');
  });

  test('concurrent exports: a split batch goes out part after part, other callers use the free slots', async () => {
    const held = heldConsumer();
    const options = { sendBatchSize: 2, sendBatchMaxSize: 2, timeoutMs: HOUR_MS, maxConcurrentExports: 3 };
    const batcher = new BatchProcessor(held.consumer, options);
    const a = batcher.consume(makeBatch(6, 'a', '0'));
    const b = batcher.consume(makeBatch(2, 'b', '1'));
    let aDone = false;
    void a.then(() => (aDone = true));
    await settleCallbacks();
    assert.equal(held.started.length, 2, "a's first part and b run together; a's second part waits for its first");
    assert.deepEqual(held.bodies(0), ['a-0', 'a-1']);
    assert.deepEqual(held.bodies(1), ['b-0', 'b-1']);
    held.started[1]!.release();
    await within(b, 5_000);
    await settleCallbacks();
    assert.equal(held.started.length, 2, 'a free slot does not let a later part of a overtake its first');
    held.started[0]!.release();
    await settleCallbacks();
    assert.equal(held.started.length, 3);
    assert.deepEqual(held.bodies(2), ['a-2', 'a-3']);
    held.started[2]!.release();
    await settleCallbacks();
    assert.deepEqual(held.bodies(3), ['a-4', 'a-5']);
    assert.equal(aDone, false, 'a resolves only after every export holding its records');
    held.started[3]!.release();
    await within(a, 5_000);
  });

  test('maxConcurrentExports must be an integer of at least 1', () => {
    const next = new InMemorySignalConsumer();
    assert.throws(() => new BatchProcessor(next, { maxConcurrentExports: 0 }), /at least 1/);
    assert.throws(() => new BatchProcessor(next, { maxConcurrentExports: 1.5 }), /at least 1/);
  });

  test('producers attached through withRetry and fanOut reach every processor behind them', async () => {
    const left = new InMemorySignalConsumer();
    const right = new InMemorySignalConsumer();
    const processors = [left, right].map((next) => new BatchProcessor(next, { timeoutMs: HOUR_MS }));
    const head = withRetry(fanOut(processors));
    assert.equal(typeof head.attachProducer, 'function');
    const detach = [0, 1].map(() => head.attachProducer!());
    await within(Promise.all([head.consume(makeBatch(1, 'a', '0')), head.consume(makeBatch(1, 'b', '1'))]), 5_000);
    assert.equal(left.calls, 1);
    assert.equal(right.calls, 1);
    for (const d of detach) d();
  });

  test('fanOut detaches from every target once, however often its detach is called', () => {
    let attached = 0;
    const counting: SignalConsumer = {
      consume: async () => {},
      attachProducer: () => {
        attached++;
        return () => attached--;
      },
    };
    const detach = fanOut([counting, counting, new InMemorySignalConsumer()]).attachProducer!();
    assert.equal(attached, 2);
    detach();
    detach();
    assert.equal(attached, 0);
  });

  test(
    'a processor in front of another attaches its export slots to it, so the chain does not stall ' + 'either',
    async () => {
      const next = new InMemorySignalConsumer();
      const inner = new BatchProcessor(next, { timeoutMs: HOUR_MS });
      const outer = new BatchProcessor(inner, { timeoutMs: HOUR_MS });
      const detach = [0, 1].map(() => outer.attachProducer());
      await within(Promise.all([outer.consume(makeBatch(1, 'a', '0')), outer.consume(makeBatch(1, 'b', '1'))]), 5_000);
      assert.equal(next.calls, 1);
      for (const d of detach) d();
      await outer.shutdown();
    },
  );
});
