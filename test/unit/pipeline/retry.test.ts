import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  withRetry,
  retryOnFailureSchema,
  retryOptionsFromConfig,
  RetriesExhaustedError,
} from '../../../src/pipeline/retry.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import { isPermanentError, RetryLaterError } from '../../../src/component/errors.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import { holdEventLoopOpen, makeBatch } from './records.ts';

holdEventLoopOpen(after);

/** A virtual clock: sleep advances time instantly, so a 300 s schedule runs in microseconds. */
function virtualClock() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

const alwaysFailing = (): SignalConsumer & { calls: number } => {
  const c = {
    calls: 0,
    async consume() {
      c.calls++;
      throw new Error('503 Service Unavailable');
    },
  };
  return c;
};

describe('withRetry', () => {
  test('retries retryable failures and resolves when the consumer accepts', async () => {
    const inner = new InMemorySignalConsumer().failNext(3);
    const clock = virtualClock();
    await withRetry(inner, { clock, random: () => 0.5 }).consume(makeBatch(2));
    assert.equal(inner.calls, 4);
    assert.equal(inner.records().length, 2);
    // random 0.5 draws the middle of each jitter window, cut at the 10 s max_interval (defaults: initial 5 s, ×1.5):
    // [2.5, 7.5] s → 5 s; [3.75, 11.25 → 10] s → 6.875 s; 11.25 s capped at 10, [5, 10] s → 7.5 s.
    assert.deepEqual(clock.sleeps, [5_000, 6_875, 7_500]);
  });

  test('max_elapsed_time ends the retries with a permanent RetriesExhaustedError carrying the last error', async () => {
    const inner = alwaysFailing();
    const clock = virtualClock();
    const options = {
      clock,
      randomizationFactor: 0,
      initialIntervalMs: 10,
      maxIntervalMs: 40,
      multiplier: 2,
      maxElapsedTimeMs: 100,
    };
    const error = await withRetry(inner, options)
      .consume(makeBatch(1))
      .catch((e: unknown) => e);
    // waits 10, 20, 40 (t = 70); the next wait of 40 would end at 110 > 100: give up after 4 attempts.
    assert.deepEqual(clock.sleeps, [10, 20, 40]);
    assert.equal(inner.calls, 4);
    assert.ok(error instanceof RetriesExhaustedError);
    assert.ok(isPermanentError(error));
    assert.equal(error.attempts, 4);
    assert.match(String((error.cause as Error).message), /503/);
  });

  test(
    'max_elapsed_time 0 retries until the consumer accepts (here after 500 attempts), capped at ' + 'max_interval',
    async () => {
      const inner = new InMemorySignalConsumer().failNext(500);
      const clock = virtualClock();
      await withRetry(inner, { clock, randomizationFactor: 0, maxElapsedTimeMs: 0 }).consume(makeBatch(1));
      assert.equal(inner.calls, 501);
      assert.equal(Math.max(...clock.sleeps), 10_000);
    },
  );

  test('no wait exceeds max_interval, jitter included (max_interval 2 s, the highest random draw)', async () => {
    const inner = new InMemorySignalConsumer().failNext(20);
    const clock = virtualClock();
    const options = {
      clock,
      random: () => 0.999_999,
      initialIntervalMs: 500,
      maxIntervalMs: 2_000,
      maxElapsedTimeMs: 0,
    };
    await withRetry(inner, options).consume(makeBatch(1));
    assert.equal(clock.sleeps.length, 20);
    assert.equal(Math.max(...clock.sleeps), 2_000);
    assert.deepEqual(clock.sleeps.slice(0, 2), [750, 1_125], 'below the cap the jitter is unchanged (×1.5 at the top)');
  });

  test('never retries a PermanentError', async () => {
    const inner = new InMemorySignalConsumer().failNext(1, 'permanent');
    await assert.rejects(withRetry(inner, { clock: virtualClock() }).consume(makeBatch(1)), (e: unknown) =>
      isPermanentError(e),
    );
    assert.equal(inner.calls, 1);
  });

  test('enabled: false passes the first failure through', async () => {
    const inner = new InMemorySignalConsumer().failNext(1);
    await assert.rejects(
      withRetry(inner, { enabled: false }).consume(makeBatch(1)),
      (e: unknown) => !isPermanentError(e),
    );
    assert.equal(inner.calls, 1);
  });

  test('an abort during the backoff wait rejects promptly with the reason (real timers)', async () => {
    const inner = alwaysFailing();
    const controller = new AbortController();
    const retrying = withRetry(inner, { initialIntervalMs: 60_000, maxIntervalMs: 60_000 });
    const pending = retrying.consume(makeBatch(1), controller.signal);
    setTimeout(() => controller.abort(new Error('shutdown')), 20);
    await assert.rejects(pending, /shutdown/);
    assert.equal(inner.calls, 1);
  });

  test('real timers with small intervals: 2 retryable failures then success', async () => {
    const inner = new InMemorySignalConsumer().failNext(2);
    const retries: number[] = [];
    await withRetry(inner, {
      initialIntervalMs: 5,
      maxIntervalMs: 10,
      onRetry: (i) => retries.push(i.attempt),
    }).consume(makeBatch(1));
    assert.deepEqual(retries, [1, 2]);
    assert.equal(inner.records().length, 1);
  });

  test('onAttempt hears every attempt as it ends: failures say whether another follows', async () => {
    const attempts: unknown[] = [];
    const onAttempt = (a: { ok: boolean; retrying?: boolean }) =>
      attempts.push(a.ok ? 'ok' : a.retrying ? 'retry' : 'last');
    await withRetry(new InMemorySignalConsumer().failNext(2), { clock: virtualClock(), onAttempt }).consume(
      makeBatch(1),
    );
    assert.deepEqual(attempts, ['retry', 'retry', 'ok']);
    attempts.length = 0;
    const options = {
      clock: virtualClock(),
      randomizationFactor: 0,
      initialIntervalMs: 10,
      maxIntervalMs: 10,
      maxElapsedTimeMs: 25,
      onAttempt,
    };
    await assert.rejects(withRetry(alwaysFailing(), options).consume(makeBatch(1)), RetriesExhaustedError);
    assert.deepEqual(attempts, ['retry', 'retry', 'last'], 'the give-up attempt is not announced as retried');
    attempts.length = 0;
    await assert.rejects(withRetry(alwaysFailing(), { enabled: false, onAttempt }).consume(makeBatch(1)));
    assert.deepEqual(attempts, ['last'], 'without retries each call is one attempt, heard too');
  });

  test("waits follow the backoff policy with this section's defaults (×1.5, ±50 %)", async () => {
    const inner = new InMemorySignalConsumer().failNext(3);
    const clock = virtualClock();
    await withRetry(inner, { initialIntervalMs: 1_000, random: () => 0.5, clock }).consume(makeBatch(1));
    assert.deepEqual(clock.sleeps, [1_000, 1_500, 2_250]);
  });
});

describe('Retry-After', () => {
  test('a failure carrying retryAfterMs waits at least that long; a shorter one leaves the backoff as is', async () => {
    let calls = 0;
    const throttled: SignalConsumer = {
      async consume() {
        calls++;
        if (calls === 1) throw new RetryLaterError('429', 12_000);
        if (calls === 2) throw new RetryLaterError('503', 10);
      },
    };
    const clock = virtualClock();
    await withRetry(throttled, { initialIntervalMs: 1_000, random: () => 0.5, clock }).consume(makeBatch(1));
    assert.deepEqual(clock.sleeps, [12_000, 1_500]);
  });

  test('a Retry-After beyond max_elapsed_time gives up at once', async () => {
    const c: SignalConsumer = { consume: () => Promise.reject(new RetryLaterError('429', 600_000)) };
    const clock = virtualClock();
    await assert.rejects(withRetry(c, { clock }).consume(makeBatch(1)), RetriesExhaustedError);
    assert.deepEqual(clock.sleeps, []);
  });
});

describe('retryOnFailureSchema', () => {
  test('fills the collector defaults, but a 10 s max_interval (recoveries noticed within 10 s)', () => {
    assert.deepEqual(retryOnFailureSchema.parse({}), {
      enabled: true,
      initial_interval: 5_000,
      max_interval: 10_000,
      max_elapsed_time: 300_000,
      multiplier: 1.5,
      randomization_factor: 0.5,
    });
  });

  test('parses Go durations and plain milliseconds', () => {
    const c = retryOnFailureSchema.parse({ initial_interval: '1s', max_interval: '1m30s', max_elapsed_time: 0 });
    assert.equal(c.initial_interval, 1_000);
    assert.equal(c.max_interval, 90_000);
    assert.equal(retryOptionsFromConfig(c).maxElapsedTimeMs, 0);
  });

  test('rejects unknown keys, bad durations and max < initial', () => {
    assert.equal(retryOnFailureSchema.safeParse({ intial_interval: '1s' }).success, false);
    assert.equal(retryOnFailureSchema.safeParse({ initial_interval: 'soon' }).success, false);
    const r = retryOnFailureSchema.safeParse({ initial_interval: '10s', max_interval: '1s' });
    assert.equal(r.success, false);
    assert.deepEqual(r.error?.issues[0]?.path, ['max_interval']);
  });
});
