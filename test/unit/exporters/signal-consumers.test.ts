import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { combineSignalConsumers } from '../../../src/exporters/internal/signal-consumers.ts';
import { PermanentError, isPermanentError } from '../../../src/component/errors.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import { isPartialRefusal, PartialRefusalError } from '../../../src/pipeline/partial-refusal.ts';
import type { Signal } from '../../../src/pipeline/signals.ts';
import { mixedBatch } from './signal-items.ts';

/** A sender recording what it was given; `fail` scripts the next outcomes (`ok` when empty). */
function sender(): SignalConsumer & { calls: SignalBatch[]; fail: ('retryable' | 'permanent' | 'ok')[] } {
  const calls: SignalBatch[] = [];
  const fail: ('retryable' | 'permanent' | 'ok')[] = [];
  return {
    calls,
    fail,
    async consume(batch) {
      calls.push(batch);
      const next = fail.shift() ?? 'ok';
      if (next === 'retryable') throw new Error('503');
      if (next === 'permanent') throw new PermanentError('400');
    },
  };
}

function senders() {
  const s = { logs: sender(), metrics: sender(), traces: sender() };
  return { s, combined: combineSignalConsumers(s, 'otlp/test') };
}

const calls = (s: ReturnType<typeof senders>['s']) =>
  Object.fromEntries((Object.keys(s) as Signal[]).map((k) => [k, s[k].calls.length]));

describe('an exporter over per-signal senders (combineSignalConsumers)', () => {
  test("each non-empty part goes to its signal's sender; empty parts send nothing", async () => {
    const { s, combined } = senders();
    await combined.consume(mixedBatch(2, 3, 0));
    assert.deepEqual(calls(s), { logs: 1, metrics: 1, traces: 0 });
    await combined.consume(mixedBatch(0, 0, 0));
    assert.deepEqual(calls(s), { logs: 1, metrics: 1, traces: 0 });
  });

  test('a retryable failure of one part rejects retryably; the retried batch resends only that part', async () => {
    const { s, combined } = senders();
    const batch = mixedBatch(2, 3, 4);
    s.traces.fail.push('retryable');
    await assert.rejects(combined.consume(batch), (e: unknown) => !isPermanentError(e));
    assert.deepEqual(calls(s), { logs: 1, metrics: 1, traces: 1 });
    await combined.consume(batch);
    assert.deepEqual(calls(s), { logs: 1, metrics: 1, traces: 2 }, 'logs and metrics were accepted: not sent again');
    // Once the batch succeeded whole, the same batch handed again is sent again (a deliberate resend).
    await combined.consume(batch);
    assert.deepEqual(calls(s), { logs: 2, metrics: 2, traces: 3 });
  });

  test(
    "a permanent failure of one part while others were accepted: a partial refusal of that part's " + 'items',
    async () => {
      const { s, combined } = senders();
      const batch = mixedBatch(2, 3, 4);
      s.metrics.fail.push('permanent');
      const error = await combined.consume(batch).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(isPartialRefusal(error));
      assert.equal(error.delivered, 6, 'two records and four spans delivered');
      assert.equal(error.refusals.length, 1);
      assert.equal(error.refusals[0]!.metrics, batch.metrics, 'the refused items are the metric points');
      assert.deepEqual(error.refusals[0]!.records, []);
    },
  );

  test('everything refused for one reason: that reason as is', async () => {
    const { s, combined } = senders();
    s.metrics.fail.push('permanent');
    await assert.rejects(
      combined.consume(mixedBatch(0, 3, 0)),
      (e: unknown) => isPermanentError(e) && !(e instanceof PartialRefusalError),
    );
  });

  test('a retryable failure wins over a permanent one (the batch is retried, not dead-lettered)', async () => {
    const { s, combined } = senders();
    s.metrics.fail.push('permanent');
    s.traces.fail.push('retryable');
    await assert.rejects(combined.consume(mixedBatch(1, 1, 1)), (e: unknown) => !isPermanentError(e));
  });

  test('an aborted call rejects with the abort reason and sends nothing', async () => {
    const { s, combined } = senders();
    const abort = new AbortController();
    abort.abort(new Error('shutdown'));
    await assert.rejects(combined.consume(mixedBatch(1, 1, 1), abort.signal), /shutdown/);
    assert.deepEqual(calls(s), { logs: 0, metrics: 0, traces: 0 });
  });
});
