import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelayMs, backoffIntervalMs, backoffPolicyDelayMs } from '../../../src/component/backoff.ts';

const MID = () => 0.5; // no jitter: 1 + f × (2 × 0.5 − 1) = 1
const LOW = () => 0;
const HIGH = () => 0.999_999;

describe('backoff', () => {
  test('grows by the multiplier from the initial interval (doubling by default)', () => {
    assert.deepEqual(
      [1, 2, 3, 4].map((n) => backoffDelayMs(n, 100, 1_000_000, MID)),
      [100, 200, 400, 800],
    );
    const policy = { initialMs: 1_000, maxMs: 1_000_000, multiplier: 1.5 };
    assert.deepEqual(
      [1, 2, 3].map((n) => backoffPolicyDelayMs(n, policy, MID)),
      [1_000, 1_500, 2_250],
    );
  });

  test('caps the interval at maxMs, also for attempts whose exponent overflows', () => {
    assert.equal(backoffIntervalMs(6, { initialMs: 1_000, maxMs: 30_000 }), 30_000);
    assert.equal(backoffDelayMs(6, 1_000, 30_000, HIGH), 30_000);
    assert.equal(backoffDelayMs(5_000, 1_000, 30_000, HIGH), 30_000);
    assert.equal(backoffIntervalMs(Number.MAX_SAFE_INTEGER, { initialMs: 1, maxMs: 7 }), 7);
  });

  test('jitter stays within interval × [1 − f, 1 + f], cut at the cap: no wait exceeds maxMs', () => {
    assert.equal(backoffDelayMs(1, 1_000, 30_000, LOW), 500);
    assert.equal(backoffDelayMs(1, 1_000, 30_000, HIGH), 1_500);
    assert.equal(backoffDelayMs(20, 1_000, 30_000, LOW), 15_000);
    assert.equal(backoffDelayMs(20, 1_000, 30_000, HIGH), 30_000);
    assert.equal(backoffDelayMs(20, 1_000, 30_000, MID), 22_500, 'at the cap the window is [15 s, 30 s]');
    // Below the cap but with the window crossing it: interval 1.6 s, window [0.8 s, 2 s] instead of [0.8, 2.4].
    assert.equal(backoffDelayMs(5, 100, 2_000, HIGH), 2_000);
    const policy = { initialMs: 1_000, maxMs: 30_000, randomizationFactor: 0.2 };
    assert.equal(backoffPolicyDelayMs(1, policy, LOW), 800);
    assert.equal(backoffPolicyDelayMs(1, policy, HIGH), 1_200);
    assert.equal(backoffPolicyDelayMs(3, { ...policy, randomizationFactor: 0 }, HIGH), 4_000);
  });

  test('with real randomness every wait falls in the bounds and the waits differ', () => {
    const waits = Array.from({ length: 200 }, () => backoffDelayMs(3, 1_000, 30_000));
    for (const w of waits) assert.ok(w >= 2_000 && w <= 6_000, `wait ${w} outside [2000, 6000]`);
    assert.ok(new Set(waits).size > 10, 'waits are spread, not all equal');
  });

  test(
    "max_interval 2 s (the issue's case: 2983 ms was seen): 1000 waits at every attempt stay ≤ 2000 ms, " + 'spread',
    () => {
      const policy = { initialMs: 500, maxMs: 2_000, multiplier: 1.5, randomizationFactor: 0.5 };
      for (let attempt = 1; attempt <= 12; attempt++) {
        const waits = Array.from({ length: 1_000 }, () => backoffPolicyDelayMs(attempt, policy));
        const max = Math.max(...waits);
        assert.ok(max <= 2_000, `attempt ${attempt}: wait ${max} ms exceeds max_interval`);
        if (attempt >= 6)
          assert.ok(Math.min(...waits) < 1_100 && max > 1_900, `attempt ${attempt}: waits spread over [1 s, 2 s]`);
      }
    },
  );

  test('never negative; attempts below 1 count as the first; whole milliseconds', () => {
    assert.equal(backoffDelayMs(0, 100, 1_000, MID), 100);
    assert.equal(backoffDelayMs(-3, 100, 1_000, MID), 100);
    assert.equal(backoffDelayMs(1, 0, 1_000, LOW), 0);
    assert.equal(backoffPolicyDelayMs(1, { initialMs: 100, maxMs: 1_000, randomizationFactor: 5 }, LOW), 0);
    assert.ok(
      Number.isInteger(backoffPolicyDelayMs(2, { initialMs: 333, maxMs: 10_000, multiplier: 1.7 }, () => 0.123)),
    );
  });
});
