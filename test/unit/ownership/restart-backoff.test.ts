import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RestartBackoff, RESTART_RESET_AFTER_MS } from '../../../src/ownership/internal/restart-backoff.ts';

test(
  'each failure of a partition grows its wait up to the cap; a long run starts afresh; partitions are ' + 'independent',
  () => {
    let now = 0;
    const b = new RestartBackoff({ initialMs: 1_000, maxMs: 8_000, now: () => now });
    const waits = Array.from({ length: 6 }, () => b.failed('0'));
    // 1 s doubling, capped at 8 s, each within ±50 % jitter.
    waits.forEach((w, i) => {
      const base = Math.min(1_000 * 2 ** i, 8_000);
      assert.ok(
        w >= base * 0.5 && w <= base * 1.5,
        `wait ${i + 1}: ${w} ms for a base of ${base} ms (${waits.join(', ')})`,
      );
    });
    assert.equal(b.failures('0'), 6);
    assert.ok(b.waitMs('0') > 0);
    assert.equal(b.waitMs('1'), 0, 'another partition is not held back');
    now += 20_000;
    assert.equal(b.waitMs('0'), 0, 'the wait runs out');
    b.failed('0', RESTART_RESET_AFTER_MS);
    assert.equal(b.failures('0'), 1, 'a partition that read long enough starts its backoff afresh');
  },
);
