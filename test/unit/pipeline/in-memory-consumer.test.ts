import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { InMemorySignalConsumer, ScriptedFailureError } from '../../../src/pipeline/in-memory-consumer.ts';
import { isPermanentError } from '../../../src/component/errors.ts';
import { holdEventLoopOpen, makeBatch, makeMixedBatch } from './records.ts';

holdEventLoopOpen(after);

describe('InMemorySignalConsumer', () => {
  test('collects records and waitFor resolves once enough arrived', async () => {
    const c = new InMemorySignalConsumer();
    const waiting = c.waitFor(3, 2_000);
    await c.consume(makeBatch(2, 'a'));
    await c.consume(makeBatch(1, 'b'));
    assert.deepEqual(
      (await waiting).map((r) => r.body),
      ['a-0', 'a-1', 'b-0'],
    );
  });

  test('keeps metric points and spans; each signal is waited for on its own count', async () => {
    const c = new InMemorySignalConsumer();
    const points = c.waitForMetricPoints(3, 2_000);
    const spans = c.waitForSpans(1, 2_000);
    await c.consume(makeMixedBatch(0, 2, 0, 'a'));
    await c.consume(makeMixedBatch(1, 1, 1, 'b'));
    assert.deepEqual(
      (await points).map((p) => p.name),
      ['a-0', 'a-1', 'b-0'],
    );
    assert.deepEqual(
      (await spans).map((s) => s.name),
      ['b-0'],
    );
    assert.equal(c.records().length, 1);
    await assert.rejects(c.waitForSpans(2, 20), /waited 20 ms for 2 spans; have 1/);
    c.reset();
    assert.equal(c.metricPoints().length, 0);
    await assert.rejects(c.waitForMetricPoints(1, 20), /have 0/);
  });

  test('waitFor rejects after its timeout', async () => {
    await assert.rejects(new InMemorySignalConsumer().waitFor(1, 20), /waited 20 ms for 1 records; have 0/);
  });

  test('scripted failures: retryable then permanent then success', async () => {
    const c = new InMemorySignalConsumer().failNext(1, 'retryable').failNext(1, 'permanent');
    await assert.rejects(
      c.consume(makeBatch(1)),
      (e: unknown) => e instanceof ScriptedFailureError && !isPermanentError(e),
    );
    await assert.rejects(c.consume(makeBatch(1)), (e: unknown) => isPermanentError(e));
    await c.consume(makeBatch(1));
    assert.equal(c.calls, 3);
    assert.equal(c.records().length, 1);
  });

  test('delayMs honours the abort signal', async () => {
    const c = new InMemorySignalConsumer({ delayMs: 60_000 });
    const controller = new AbortController();
    const p = c.consume(makeBatch(1), controller.signal);
    controller.abort(new Error('stop'));
    await assert.rejects(p, /stop/);
    assert.equal(c.records().length, 0);
  });
});
