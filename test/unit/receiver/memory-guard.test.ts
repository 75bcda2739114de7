import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryGuard, type MemoryGuardOptions } from '../../../src/receiver/memory-guard.ts';

const MIB = 1024 * 1024;

/** A guard on a scripted memory reading, a counting gc (which brings memory down to `afterGc`) and a fake clock. */
function guard(overrides: Partial<MemoryGuardOptions> = {}) {
  const s = { usage: 10 * MIB, afterGc: 10 * MIB, gcs: 0, now: 0, holds: 0, releases: 0, changes: [] as boolean[] };
  const g = new MemoryGuard({
    limitBytes: 100 * MIB,
    checkIntervalMs: 60_000,
    readUsage: () => s.usage,
    gc: () => {
      s.gcs++;
      s.usage = s.afterGc;
    },
    now: () => s.now,
    holdHeapGrowth: () => {
      s.holds++;
      return () => void s.releases++;
    },
    onChange: (paused) => s.changes.push(paused),
    ...overrides,
  });
  return { g, s };
}

const signal = () => new AbortController().signal;

test('below the limit: no collection, reading goes on (whenReadable is undefined)', () => {
  const { g, s } = guard();
  g.start();
  assert.equal(g.check(), false);
  assert.equal(s.gcs, 0);
  assert.equal(g.whenReadable(signal()), undefined);
  g.stop();
});

test('above the limit a collection is forced first; if it brings memory under the limit, reading goes on', () => {
  const { g, s } = guard();
  g.start();
  s.usage = 150 * MIB;
  s.afterGc = 60 * MIB;
  assert.equal(g.check(), false);
  assert.equal(s.gcs, 1);
  assert.deepEqual(s.changes, []);
  assert.equal(g.stats().usageBytes, 60 * MIB);
  assert.equal(g.stats().maxUsageBytes, 150 * MIB);
  g.stop();
});

test('still above after the collection: reading pauses until a check finds memory at or below the limit', async () => {
  const { g, s } = guard();
  g.start();
  s.usage = 150 * MIB;
  s.afterGc = 120 * MIB;
  assert.equal(g.check(), true);
  assert.deepEqual(s.changes, [true]);
  let resumed = false;
  const waiting = g.whenReadable(signal());
  assert.ok(waiting, 'a partition waits');
  void waiting.then(() => (resumed = true));
  // Live data falls (the batches in flight finished) and the next allowed collection finds it.
  s.afterGc = 100 * MIB;
  s.now += 1_000;
  assert.equal(g.check(), false);
  await waiting;
  assert.equal(resumed, true);
  assert.deepEqual(s.changes, [true, false]);
  assert.equal(g.whenReadable(signal()), undefined);
  assert.deepEqual(
    { ...g.stats(), usageBytes: 0, maxUsageBytes: 0 },
    {
      limitBytes: 100 * MIB,
      paused: false,
      usageBytes: 0,
      maxUsageBytes: 0,
      forcedGcs: 2,
      pauses: 1,
    },
  );
  g.stop();
});

test('forced collections are at most one per minGcIntervalMs, whatever the check rate', () => {
  const { g, s } = guard({ minGcIntervalMs: 1_000 });
  g.start();
  s.usage = 150 * MIB;
  s.afterGc = 150 * MIB;
  g.check();
  s.now += 500;
  g.check();
  assert.equal(s.gcs, 1);
  s.now += 500;
  g.check();
  assert.equal(s.gcs, 2);
  g.stop();
});

test('a waiting partition is let go when its stop signal aborts, and all are when the guard stops', async () => {
  const { g, s } = guard({ gc: undefined });
  g.start();
  s.usage = 150 * MIB;
  assert.equal(g.check(), true, 'no collection available: pauses at once');
  const stopping = new AbortController();
  const first = g.whenReadable(stopping.signal)!;
  const second = g.whenReadable(signal())!;
  stopping.abort();
  await first;
  assert.equal(g.stats().paused, true, 'one partition stopping does not resume the others');
  g.stop();
  await second;
  const aborted = new AbortController();
  aborted.abort();
  assert.equal(g.whenReadable(aborted.signal), undefined);
});

test('start bounds heap growth once; stop releases it once', () => {
  const { g, s } = guard();
  g.start();
  g.start();
  assert.equal(s.holds, 1);
  g.stop();
  g.stop();
  assert.equal(s.releases, 1);
});

test('options are checked', () => {
  assert.throws(() => new MemoryGuard({ limitBytes: 0, checkIntervalMs: 1 }), /limitBytes/);
  assert.throws(() => new MemoryGuard({ limitBytes: 1, checkIntervalMs: 0 }), /checkIntervalMs/);
});
