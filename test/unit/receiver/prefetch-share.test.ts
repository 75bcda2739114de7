import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { PREFETCH_BUDGET_EVENTS, prefetchShare } from '../../../src/receiver/internal/prefetch-share.ts';
import { DEFAULT_PREFETCH_COUNT } from '../../../src/backends/consumer.ts';

describe('prefetchShare', () => {
  test('up to 8 partitions each keeps the SDK default of 300; beyond, the budget is shared', () => {
    for (const n of [0, 1, 4, 8]) assert.equal(prefetchShare(n, 100), DEFAULT_PREFETCH_COUNT, `${n} partitions`);
    assert.equal(prefetchShare(12, 100), 200);
    assert.equal(prefetchShare(16, 100), 150);
    assert.equal(prefetchShare(32, 100), 75);
    for (const n of [9, 12, 16, 24, 32, 48]) {
      assert.ok(prefetchShare(n, 100) * n <= PREFETCH_BUDGET_EVENTS, `${n} partitions stay within the budget`);
    }
  });

  test('never below half a batch, so a receive still gets whole batches from a backlog', () => {
    assert.equal(prefetchShare(1024, 100), 50);
    assert.equal(prefetchShare(10_000, 1), 1);
    assert.equal(prefetchShare(64, 500), 250);
    assert.equal(prefetchShare(4, 1000), 500, 'a large batch raises the floor above the default as well');
  });
});
