import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Checkpointer } from '../../../src/receiver/checkpointer.ts';
import { RecordingStore } from './fakes.ts';

const scope = { fullyQualifiedNamespace: 'ns', eventHubName: 'hub', consumerGroup: '$Default' };

function make(opts: { intervalMs?: number; everyN?: number; initial?: number; valid?: () => boolean } = {}) {
  let now = 1_000_000;
  const store = new RecordingStore();
  const cp = new Checkpointer({
    store,
    scope,
    partitionId: '0',
    intervalMs: opts.intervalMs ?? 5_000,
    everyNEvents: opts.everyN ?? 0,
    now: () => now,
    initial: opts.initial === undefined ? undefined : { partitionId: '0', sequenceNumber: opts.initial, offset: '0' },
    fence: opts.valid ? { leaseId: 'l', isValid: opts.valid } : undefined,
  });
  return { cp, store, advance: (ms: number) => (now += ms) };
}

test('the first mark after a claim is written at once; then on the interval, not on every mark', async () => {
  const { cp, store, advance } = make({ intervalMs: 5_000 });
  for (let s = 0; s < 100; s++) {
    cp.mark(s, String(s), 1);
    await cp.flushIfDue();
    advance(10);
  }
  assert.deepEqual(
    store.writes.map((w) => w.sequenceNumber),
    [0],
    'only the first, 1 s elapsed',
  );
  advance(4_100);
  await cp.flushIfDue();
  assert.deepEqual(
    store.writes.map((w) => w.sequenceNumber),
    [0, 99],
  );
});

test('writes every N events when that comes first', async () => {
  const { cp, store } = make({ intervalMs: 60_000, everyN: 50 });
  for (let s = 0; s < 120; s++) {
    cp.mark(s, String(s), 1);
    await cp.flushIfDue();
  }
  assert.deepEqual(
    store.writes.map((w) => w.sequenceNumber),
    [0, 50, 100],
  );
});

test(
  'catching up, a write is due once the marked events were enqueued one interval after the written one (at most ' +
    'every second)',
  async () => {
    const { cp, store, advance } = make({ intervalMs: 10_000 });
    // A backlog drained 20× faster than it came: 100 ms of wall time per 2 s of enqueued traffic.
    const enqueued0 = 5_000_000;
    for (let s = 0; s < 200; s++) {
      cp.mark(s, String(s), 1, enqueued0 + s * 2_000);
      await cp.flushIfDue();
      advance(100);
    }
    const written = store.writes.map((w) => w.sequenceNumber);
    // 20 s of wall time: by the interval alone, 2 writes; by enqueued time, one per 5 events (10 s of traffic) at
    // most once a second (10 marks): every 10th.
    assert.deepEqual(
      written,
      [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190],
    );
    // Live again (enqueued time advancing with the wall clock): back to one write per interval.
    const base = enqueued0 + 200 * 2_000;
    for (let s = 200; s < 400; s++) {
      cp.mark(s, String(s), 1, base + (s - 200) * 100);
      await cp.flushIfDue();
      advance(100);
    }
    assert.equal(
      store.writes.length - written.length,
      2,
      `20 s live at a 10 s interval: ${store.writes.length - written.length} writes`,
    );
  },
);

test('resumeFrom: a position already exported beyond the stored checkpoint is written at the first write', async () => {
  let now = 0;
  const store = new RecordingStore();
  const cp = new Checkpointer({
    store,
    scope,
    partitionId: '0',
    intervalMs: 10_000,
    everyNEvents: 0,
    now: () => now,
    initial: { partitionId: '0', sequenceNumber: 10, offset: '10' },
    resumeFrom: { partitionId: '0', sequenceNumber: 40, offset: '40' },
  });
  assert.equal(cp.msUntilDue(), 0);
  assert.equal(await cp.flushIfDue(), true);
  assert.deepEqual(
    store.writes.map((w) => w.sequenceNumber),
    [40],
  );
  now += 1;
  cp.mark(35, '35', 1);
  assert.equal(await cp.flush(), false, 'never below what was resumed from');
});

test('never moves backwards, not even below the checkpoint it started from', async () => {
  const { cp, store } = make({ initial: 10 });
  cp.mark(5, '5', 1);
  assert.equal(await cp.flush(), false);
  cp.mark(12, '12', 1);
  cp.mark(11, '11', 1);
  await cp.flush();
  assert.deepEqual(
    store.writes.map((w) => w.sequenceNumber),
    [12],
  );
});

test('a failed write keeps the mark for the next attempt', async () => {
  const { cp, store } = make();
  store.failWrites = 1;
  cp.mark(3, '300', 3);
  await assert.rejects(cp.flush(), /storage unavailable/);
  assert.equal(await cp.flush(), true);
  assert.equal(store.data.get('0')?.offset, '300');
});

test('a lapsed fence refuses the write', async () => {
  const { cp } = make({ valid: () => false });
  cp.mark(3, '300', 3);
  await assert.rejects(cp.flush(), { name: 'CheckpointFencedError' });
});

test('a failed count-triggered write waits for the interval before the next attempt, whatever the count', async () => {
  let now = 0;
  const store = new RecordingStore();
  const c = new Checkpointer({
    store,
    scope: { fullyQualifiedNamespace: 'f', eventHubName: 'h', consumerGroup: 'g' },
    partitionId: '0',
    intervalMs: 5_000,
    everyNEvents: 10,
    now: () => now,
  });
  c.mark(19, '1900', 20);
  assert.equal(c.msUntilDue(), 0);
  store.failWrites = 1;
  await assert.rejects(c.flushIfDue());
  c.mark(29, '2900', 10);
  assert.equal(c.msUntilDue(), 5_000, 'no retry on the next batch');
  now += 5_000;
  assert.equal(await c.flushIfDue(), true);
  assert.equal(store.data.get('0')?.sequenceNumber, 29);
});
