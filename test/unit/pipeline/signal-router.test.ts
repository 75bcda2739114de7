import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { routeSignals } from '../../../src/pipeline/signal-router.ts';
import { FanOutError } from '../../../src/pipeline/fan-out.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import { DataRefusedError, isDataRefused, isPermanentError, PermanentError } from '../../../src/component/errors.ts';
import { isPartialRefusal, PartialRefusalError } from '../../../src/pipeline/partial-refusal.ts';
import { RetriesExhaustedError } from '../../../src/pipeline/retry.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import { makeBatch, makeMixedBatch } from './records.ts';

/** A consumer whose calls wait until the test settles them. */
function heldConsumer() {
  const calls: { batch: SignalBatch; resolve: () => void; reject: (e: unknown) => void }[] = [];
  const consumer: SignalConsumer = {
    consume: (batch) => new Promise<void>((resolve, reject) => void calls.push({ batch, resolve, reject })),
  };
  return { consumer, calls };
}

/** A consumer that fails every call with `error(batch)`. */
function failing(error: (batch: SignalBatch) => unknown): SignalConsumer & { calls: number } {
  const c = {
    calls: 0,
    consume: async (batch: SignalBatch) => {
      c.calls++;
      throw error(batch);
    },
  };
  return c;
}

describe('routeSignals', () => {
  test('each head gets only its signal; a head whose signal the batch lacks is not called', async () => {
    const logs = new InMemorySignalConsumer();
    const metrics = new InMemorySignalConsumer();
    const traces = new InMemorySignalConsumer();
    const router = routeSignals([
      { signal: 'logs', consumer: logs },
      { signal: 'metrics', consumer: metrics },
      { signal: 'traces', consumer: traces },
    ]);
    assert.deepEqual([...router.signals], ['logs', 'metrics', 'traces']);
    await router.consume(makeMixedBatch(2, 3, 0));
    assert.equal(logs.batches.length, 1);
    assert.deepEqual(
      logs.records().map((r) => r.body),
      ['m-0', 'm-1'],
    );
    assert.equal(logs.batches[0]!.metrics, undefined, 'a logs pipeline never carries metric points');
    assert.deepEqual(
      metrics.metricPoints().map((p) => p.name),
      ['m-0', 'm-1', 'm-2'],
    );
    assert.deepEqual(metrics.batches[0]!.records, []);
    assert.equal(metrics.batches[0]!.spans, undefined);
    assert.equal(traces.calls, 0, 'no spans: the traces head is not called');
    assert.equal(metrics.batches[0]!.source, logs.batches[0]!.source, 'every part keeps the batch source');
  });

  test('two pipelines of one signal both get that part', async () => {
    const a = new InMemorySignalConsumer();
    const b = new InMemorySignalConsumer();
    const m = new InMemorySignalConsumer();
    await routeSignals([
      { signal: 'traces', consumer: a },
      { signal: 'traces', consumer: b },
      { signal: 'metrics', consumer: m },
    ]).consume(makeMixedBatch(0, 0, 2));
    assert.equal(a.spans().length, 2);
    assert.equal(b.spans().length, 2);
    assert.equal(m.calls, 0);
  });

  test('resolves only when every signal part was accepted', async () => {
    const logs = heldConsumer();
    const spans = heldConsumer();
    const router = routeSignals([
      { signal: 'logs', consumer: logs.consumer },
      { signal: 'traces', consumer: spans.consumer },
    ]);
    let settled = false;
    const done = router.consume(makeMixedBatch(1, 0, 1)).then(() => void (settled = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(logs.calls.length, 1);
    assert.equal(spans.calls.length, 1, 'parts go out at once, not one after the other');
    logs.calls[0]!.resolve();
    await new Promise((r) => setImmediate(r));
    assert.equal(settled, false, 'the spans are not accepted yet');
    spans.calls[0]!.resolve();
    await done;
    assert.equal(settled, true);
  });

  test("a batch of one signal is that head's call: its error comes back as it is", async () => {
    const exhausted = new RetriesExhaustedError(3, 1000, new Error('down'));
    const metrics = failing(() => exhausted);
    const logs = new InMemorySignalConsumer();
    const router = routeSignals([
      { signal: 'logs', consumer: logs },
      { signal: 'metrics', consumer: metrics },
    ]);
    await assert.rejects(router.consume(makeMixedBatch(0, 2, 0)), (e: unknown) => e === exhausted);
    assert.equal(logs.calls, 0);
  });

  test('any retryable failure fails the whole call retryably; a retry sends every part again', async () => {
    const logs = new InMemorySignalConsumer();
    const metrics = new InMemorySignalConsumer().failNext(1, 'retryable');
    const traces = new InMemorySignalConsumer().failNext(1, 'permanent');
    const router = routeSignals([
      { signal: 'logs', consumer: logs },
      { signal: 'metrics', consumer: metrics },
      { signal: 'traces', consumer: traces },
    ]);
    const error = await router.consume(makeMixedBatch(1, 1, 1)).catch((e: unknown) => e);
    assert.ok(error instanceof FanOutError);
    assert.equal(isPermanentError(error), false);
    assert.equal(error.errors.length, 2);
    await router.consume(makeMixedBatch(1, 1, 1));
    assert.equal(logs.records().length, 2, 'the logs part is delivered again (at-least-once)');
    assert.equal(metrics.metricPoints().length, 1);
  });

  test('a memory limiter refusing one signal keeps the whole batch held, never refused for good', async () => {
    const logs = new InMemorySignalConsumer();
    const metrics = failing(
      () => new RetriesExhaustedError(2, 10, new DataRefusedError('data refused due to high memory usage')),
    );
    const error = await routeSignals([
      { signal: 'logs', consumer: logs },
      { signal: 'metrics', consumer: metrics },
    ])
      .consume(makeMixedBatch(1, 1, 0))
      .catch((e: unknown) => e);
    assert.equal(isPermanentError(error), false);
    assert.equal(isDataRefused(error), true);
  });

  test("a part refused for good while the others went out: a partial refusal naming that part's items", async () => {
    const logs = new InMemorySignalConsumer();
    const metrics = failing(() => new PermanentError('metrics backend says 400'));
    const traces = new InMemorySignalConsumer();
    const batch = makeMixedBatch(2, 3, 1);
    const error = await routeSignals([
      { signal: 'logs', consumer: logs },
      { signal: 'metrics', consumer: metrics },
      { signal: 'traces', consumer: traces },
    ])
      .consume(batch)
      .catch((e: unknown) => e);
    assert.ok(isPartialRefusal(error), String(error));
    assert.deepEqual([...error.refusedMetrics()], [...batch.metrics!]);
    assert.equal(error.refusedRecords().size, 0);
    assert.equal(error.refusedSpans().size, 0);
    assert.equal(error.delivered, 3, 'two records and one span were delivered');
    assert.equal(error.refusals[0]!.error.message, 'metrics backend says 400');
    assert.equal(logs.records().length, 2);
    assert.equal(traces.spans().length, 1);
  });

  test('partial refusals of several signals are merged, each item with its own reason', async () => {
    const batch = makeMixedBatch(2, 2, 2);
    const logs = failing(
      (b) => new PartialRefusalError([{ records: [b.records[1]!], error: new Error('record too large') }], 1),
    );
    const traces = failing(
      (b) => new PartialRefusalError([{ records: [], spans: [b.spans![0]!], error: new Error('bad span') }], 1),
    );
    const metrics = new InMemorySignalConsumer();
    const error = await routeSignals([
      { signal: 'logs', consumer: logs },
      { signal: 'metrics', consumer: metrics },
      { signal: 'traces', consumer: traces },
    ])
      .consume(batch)
      .catch((e: unknown) => e);
    assert.ok(isPartialRefusal(error));
    assert.deepEqual([...error.refusedRecords()], [batch.records[1]]);
    assert.deepEqual([...error.refusedSpans()], [batch.spans![0]]);
    assert.equal(error.refusedMetrics().size, 0);
    assert.equal(error.delivered, 4);
    assert.deepEqual(
      error.refusals.map((r) => r.error.message),
      ['record too large', 'bad span'],
    );
  });

  test('items of a signal no pipeline takes are refused, never silently accepted', async () => {
    const logs = new InMemorySignalConsumer();
    const batch = makeMixedBatch(1, 0, 2);
    const error = await routeSignals([{ signal: 'logs', consumer: logs }])
      .consume(batch)
      .catch((e: unknown) => e);
    assert.ok(isPartialRefusal(error));
    assert.deepEqual([...error.refusedSpans()], [...batch.spans!]);
    assert.match(error.message, /no traces pipeline/);
    assert.equal(logs.records().length, 1);
    await assert.rejects(
      routeSignals([{ signal: 'logs', consumer: logs }]).consume(makeMixedBatch(0, 1, 0)),
      /no metrics pipeline/,
    );
  });

  test('an empty batch resolves without calling anyone; a logs-only batch goes to the logs head as it is', async () => {
    const logs = new InMemorySignalConsumer();
    const metrics = new InMemorySignalConsumer();
    const router = routeSignals([
      { signal: 'logs', consumer: logs },
      { signal: 'metrics', consumer: metrics },
    ]);
    await router.consume(makeBatch(0));
    assert.equal(logs.calls + metrics.calls, 0);
    const batch = makeBatch(2);
    await router.consume(batch);
    assert.equal(logs.batches[0], batch);
  });

  test('an abort reaches every part and the call rejects with its reason', async () => {
    const logs = heldConsumer();
    const aborted: string[] = [];
    const watch = (name: string): SignalConsumer => ({
      consume: (_b, signal) =>
        new Promise<void>((_resolve, reject) => {
          signal?.addEventListener('abort', () => {
            aborted.push(name);
            reject(signal.reason);
          });
        }),
    });
    const controller = new AbortController();
    const router = routeSignals([
      { signal: 'metrics', consumer: watch('metrics') },
      { signal: 'traces', consumer: watch('traces') },
    ]);
    const call = router.consume(makeMixedBatch(0, 1, 1), controller.signal);
    controller.abort(new Error('ownership lost'));
    await assert.rejects(call, /ownership lost/);
    assert.deepEqual(aborted.sort(), ['metrics', 'traces']);
    assert.equal(logs.calls.length, 0);
  });

  test('a producer is announced to every head once, and detached from all', () => {
    const counts = { logs: 0, metrics: 0 };
    const counting = (key: keyof typeof counts): SignalConsumer => ({
      consume: async () => {},
      attachProducer: () => {
        counts[key]++;
        return () => void counts[key]--;
      },
    });
    const router = routeSignals([
      { signal: 'logs', consumer: counting('logs') },
      { signal: 'metrics', consumer: counting('metrics') },
    ]);
    const detach = router.attachProducer!();
    assert.deepEqual(counts, { logs: 1, metrics: 1 });
    detach();
    detach();
    assert.deepEqual(counts, { logs: 0, metrics: 0 });
  });
});
