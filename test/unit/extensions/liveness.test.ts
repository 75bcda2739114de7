import { test } from 'node:test';
import assert from 'node:assert/strict';
import { liveness } from '../../../src/extensions/health-check/liveness.ts';
import type { PartitionStats, ReceiverStats } from '../../../src/receiver/receiver-status.ts';

function receiver(partitions: Partial<PartitionStats>[], paused = false): { stats(): ReceiverStats } {
  const full = partitions.map(
    (p, i) =>
      ({
        partitionId: String(i),
        lastProcessedSequenceNumber: 0,
        lagEvents: 0,
        lagSeconds: 0,
        state: 'reading',
        stateSeconds: 0,
        ...p,
      }) as PartitionStats,
  );
  return {
    stats: () => ({
      counters: {} as ReceiverStats['counters'],
      partitions: full,
      restarts: {} as ReceiverStats['restarts'],
      released: [],
      ...(paused
        ? { memory: { limitBytes: 1, paused: true, usageBytes: 2, maxUsageBytes: 2, forcedGcs: 0, pauses: 1 } }
        : {}),
    }),
  };
}

test('wedged only for a reading partition without progress past the limit; outside waits are not wedged', () => {
  const limit = 120_000;
  assert.deepEqual(liveness(new Map([['r', receiver([{ idleSeconds: 119 }, { idleSeconds: 3 }])]]), limit), {
    status: 'live',
  });
  assert.deepEqual(liveness(new Map([['r', receiver([{ idleSeconds: 3 }, { idleSeconds: 121 }])]]), limit), {
    status: 'wedged',
    wedged: { r: { '1': 121 } },
  });
  // Waiting on the pipeline, retrying a failing reader, paused for memory: something outside explains it.
  const outside = receiver([
    { state: 'waiting', idleSeconds: 500 },
    { state: 'retrying', idleSeconds: 500 },
  ]);
  assert.deepEqual(
    liveness(
      new Map([
        ['r', outside],
        ['m', receiver([{ idleSeconds: 500 }], true)],
      ]),
      limit,
    ),
    { status: 'live' },
  );
});
