import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FleetRecorder, LAG_HISTORY_MS, LAST_ERRORS_KEPT } from '../../../src/extensions/zpages/fleet-recorder.ts';
import type { HubPartitionLag, ReceiverStatus } from '../../../src/receiver/receiver-status.ts';
import { lagChart } from '../../../src/extensions/zpages/lag-chart.ts';

/** A receiver whose hub lag and statuses the test sets; nobody owns anything here (every lag is estimated). */
function fake() {
  const listeners = new Set<(s: ReceiverStatus) => void>();
  const state = { rows: [] as HubPartitionLag[] };
  const receiver = {
    stats: () => ({ counters: {} as never, partitions: [], restarts: {} as never, released: [] }),
    ownedPartitions: () => [],
    onStatus: (l: (s: ReceiverStatus) => void) => (listeners.add(l), () => listeners.delete(l)),
    hubLag: () => state.rows,
  };
  return { receiver, state, emit: (s: ReceiverStatus) => listeners.forEach((l) => l(s)) };
}

const row = (at: number, checkpoint: number, last: number, lastTime: number): HubPartitionLag => ({
  partitionId: '0',
  owner: 'pod-b',
  checkpointSequenceNumber: checkpoint,
  lastEnqueuedSequenceNumber: last,
  lagEvents: Math.max(0, last - checkpoint),
  lastEnqueuedTime: new Date(lastTime),
  refreshedAt: new Date(at),
  stale: false,
});

test('keeps one sample per monitor refresh for 15 minutes and estimates time lag from the history', () => {
  let now = 1_000_000_000;
  const { receiver, state } = fake();
  const recorder = new FleetRecorder(receiver, () => now);
  // t0: caught up (checkpoint 10 = last 10). t0+30s: 5 new events, the newest enqueued at t0+25s.
  state.rows = [row(now, 10, 10, now - 1_000)];
  recorder.sample();
  recorder.sample(); // same refresh: no second sample
  assert.equal(recorder.history('0').length, 1);
  assert.equal(recorder.history('0')[0]!.lagSeconds, 0);
  const t0 = now;
  now += 30_000;
  state.rows = [row(now, 10, 15, t0 + 25_000)];
  recorder.sample();
  // t0+90s: still stuck at 10, more events (newest at t0+85s): the oldest waiting event came no later than
  // t0+25s (the first sample that held it), so lag ≥ 65 s, not 5 s.
  now += 60_000;
  state.rows = [row(now, 10, 30, t0 + 85_000)];
  recorder.sample();
  const h = recorder.history('0');
  assert.deepEqual(
    h.map((s) => s.lagEvents),
    [0, 5, 20],
  );
  assert.deepEqual(
    h.map((s) => s.lagSeconds),
    [0, 5, 65],
  );
  assert.deepEqual(
    h.map((s) => s.estimated),
    [false, true, true],
  );
  assert.match(lagChart(h, now, 'p0'), /data-samples="3"/);

  // 15 minutes on, the old samples are gone; the history never reaches further back.
  now = t0 + LAG_HISTORY_MS + 60_000;
  state.rows = [row(now, 30, 30, now - 1_000)];
  recorder.sample();
  // t0 and t0+30s fell out of the window; t0+90s (16 min − 90 s ago) is still in it.
  assert.deepEqual(
    recorder.history('0').map((s) => s.lagEvents),
    [20, 0],
  );
});

test('keeps the last errors, newest first, folds repeats and redacts secrets', () => {
  const { receiver, emit } = fake();
  const recorder = new FleetRecorder(receiver, () => 5);
  emit({ type: 'exported', partitionId: '0', records: 1, events: 1, durationMs: 1 });
  assert.equal(recorder.errors().length, 0, 'routine statuses are not errors');
  const failing = { type: 'checkpointFailed', partitionId: '0', error: new Error('403 AccountKey=abc123def') } as const;
  emit(failing);
  emit(failing);
  assert.equal(recorder.errors().length, 1);
  assert.equal(recorder.errors()[0]!.count, 2);
  assert.equal(recorder.errors()[0]!.message, '403 AccountKey=***');
  for (let i = 0; i < LAST_ERRORS_KEPT + 5; i++) emit({ type: 'hubUnreachable', error: new Error(`down ${i}`) });
  assert.equal(recorder.errors().length, LAST_ERRORS_KEPT);
  assert.equal(recorder.errors()[0]!.message, `down ${LAST_ERRORS_KEPT + 4}`);
  recorder.stop();
  emit({ type: 'hubUnreachable', error: new Error('after stop') });
  assert.notEqual(recorder.errors()[0]!.message, 'after stop');
});
