import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { fanOut, FanOutError } from '../../../src/pipeline/fan-out.ts';
import { InMemoryLogsConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import { isPermanentError } from '../../../src/component/errors.ts';
import { makeBatch } from './records.ts';

describe('fanOut', () => {
  test('resolves when all consumers accepted, each got the batch', async () => {
    const a = new InMemoryLogsConsumer();
    const b = new InMemoryLogsConsumer();
    await fanOut([a, b]).consume(makeBatch(2));
    assert.equal(a.records().length, 2);
    assert.equal(b.records().length, 2);
  });

  test('one permanent failure while the other accepted → permanent', async () => {
    const a = new InMemoryLogsConsumer();
    const b = new InMemoryLogsConsumer().failNext(1, 'permanent');
    await assert.rejects(fanOut([a, b]).consume(makeBatch(1)), (e: unknown) => isPermanentError(e));
    assert.equal(a.records().length, 1);
  });

  test('any retryable failure → retryable, even next to a permanent one; a retry re-sends to all (duplicate)', async () => {
    const a = new InMemoryLogsConsumer();
    const b = new InMemoryLogsConsumer().failNext(1, 'retryable');
    const c = new InMemoryLogsConsumer().failNext(1, 'permanent');
    const fan = fanOut([a, b, c]);
    const error = await fan.consume(makeBatch(1)).catch((e: unknown) => e);
    assert.ok(error instanceof FanOutError);
    assert.equal(isPermanentError(error), false);
    assert.equal(error.errors.length, 2);
    await fan.consume(makeBatch(1));
    assert.equal(a.records().length, 2, 'the consumer that accepted the first time receives the batch again');
  });

  test('two permanent failures → one PermanentError naming both', async () => {
    const a = new InMemoryLogsConsumer().failNext(1, 'permanent');
    const b = new InMemoryLogsConsumer().failNext(1, 'permanent');
    await assert.rejects(fanOut([a, b]).consume(makeBatch(1)), (e: unknown) => isPermanentError(e) && /2 of 2/.test((e as Error).message));
  });

  test('forwards forceFlush and shutdown to all', async () => {
    const a = new InMemoryLogsConsumer();
    const b = new InMemoryLogsConsumer();
    const fan = fanOut([a, b]);
    await fan.shutdown!();
    await assert.rejects(a.consume(makeBatch(1)), (e: unknown) => isPermanentError(e));
    await assert.rejects(b.consume(makeBatch(1)), (e: unknown) => isPermanentError(e));
  });
});
