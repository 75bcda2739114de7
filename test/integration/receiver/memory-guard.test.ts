import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { createAzureEventHubReceiver, type ReceiverConfigInput, type ReceiverStatus } from '../../../src/index.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import { BACKENDS, byPartition, preload, until } from './harness.ts';
import { DEFAULT_MAX_BATCHES_IN_FLIGHT } from '../../../src/config/receiver-defaults.ts';

const MIB = 1024 * 1024;
const LIMIT_MIB = 64;
const MAX_POLL_EVENTS = 20;

/**
 * A memory reading the test sets (`memory.limit_mib` is compared with it), counting how often the guard
 * measured, so the test waits on checks having happened instead of sleeping.
 */
function scriptedMemory(): {
  read: () => number;
  high: boolean;
  reads: number;
  afterReads: (n: number) => Promise<void>;
} {
  const m = {
    high: false,
    reads: 0,
    read: () => {
      m.reads++;
      return (m.high ? LIMIT_MIB * 2 : LIMIT_MIB / 2) * MIB;
    },
    afterReads: (n: number) => {
      const target = m.reads + n;
      return until(() => m.reads >= target, 20_000, `${n} memory checks`);
    },
  };
  return m;
}

function startGuardedReceiver(
  t: TestContext,
  config: ReceiverConfigInput,
  consumer: InMemorySignalConsumer,
  read: () => number,
) {
  const receiver = createAzureEventHubReceiver(
    {
      poll_rate: 0.2,
      max_poll_events: MAX_POLL_EVENTS,
      memory: { limit_mib: LIMIT_MIB, check_interval: '20ms' },
      ...config,
    },
    consumer,
    { readMemoryUsage: read },
  );
  t.after(() => receiver.shutdown());
  const statuses: ReceiverStatus['type'][] = [];
  receiver.onStatus((s) => {
    if (s.type === 'memoryPaused' || s.type === 'memoryResumed') statuses.push(s.type);
  });
  return { receiver, statuses };
}

for (const backend of BACKENDS) {
  describe(`memory.limit_mib on the ${backend} backend`, () => {
    test('above the limit from the start nothing is read; below it every event arrives once, in order', {
      timeout: 60_000,
    }, async (t) => {
      const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: 2 });
      preload(emulator, hubName, 2, 300);
      const memory = scriptedMemory();
      memory.high = true;
      const consumer = new InMemorySignalConsumer();
      const config = { connection: connectionString, backend, format: 'raw' as const, start_position: 'earliest' };
      const { receiver, statuses } = startGuardedReceiver(t, config, consumer, memory.read);
      await receiver.start();
      await until(() => receiver.ownedPartitions().length === 2, 20_000, 'both partitions owned');
      // Both pumps had many chances to read while memory stayed above the limit.
      await memory.afterReads(25);
      assert.equal(consumer.records().length, 0, 'nothing read while paused');
      assert.equal(receiver.stats().memory?.paused, true);
      assert.deepEqual(statuses, ['memoryPaused']);

      memory.high = false;
      await consumer.waitFor(600, 45_000);
      await receiver.shutdown();
      for (const seqs of byPartition(consumer.records()).values()) {
        assert.deepEqual(
          seqs,
          Array.from({ length: 300 }, (_, i) => i),
          'each event once, in order',
        );
      }
      assert.deepEqual(statuses, ['memoryPaused', 'memoryResumed']);
      const stats = receiver.stats().memory;
      assert.equal(stats?.paused, false);
      assert.equal(stats?.pauses, 1);
      assert.equal(stats?.limitBytes, LIMIT_MIB * MIB);
      assert.ok((stats?.forcedGcs ?? 0) >= 1, 'a collection was forced before pausing');
    });

    test('memory rising mid-drain pauses reading after the batches in flight; resuming loses nothing', {
      timeout: 60_000,
    }, async (t) => {
      const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: 1 });
      preload(emulator, hubName, 1, 1_000);
      const memory = scriptedMemory();
      let paused!: () => void;
      const pausedSeen = new Promise<void>((resolve) => (paused = resolve));
      // The first batch "uses memory" and its export waits until the guard paused reading, so the pause
      // lands while the pump is mid-batch.
      const consumer = new (class extends InMemorySignalConsumer {
        override async consume(batch: SignalBatch, signal?: AbortSignal): Promise<void> {
          if (this.calls === 0) {
            memory.high = true;
            await pausedSeen;
          }
          return super.consume(batch, signal);
        }
      })();
      const config = { connection: connectionString, backend, format: 'raw' as const, start_position: 'earliest' };
      const { receiver, statuses } = startGuardedReceiver(t, config, consumer, memory.read);
      receiver.onStatus((s) => void (s.type === 'memoryPaused' && paused()));
      await receiver.start();
      await pausedSeen;
      await memory.afterReads(25);
      const whilePaused = consumer.records().length;
      // At most the batches in flight when it paused (the one whose export paused it among them) and the one
      // the pump had already received.
      const bound = (DEFAULT_MAX_BATCHES_IN_FLIGHT + 1) * MAX_POLL_EVENTS;
      assert.ok(whilePaused <= bound, `read ${whilePaused} events while paused`);
      await memory.afterReads(25);
      assert.equal(consumer.records().length, whilePaused, 'no more reads while paused');

      memory.high = false;
      await consumer.waitFor(1_000, 45_000);
      await receiver.shutdown();
      assert.deepEqual(
        byPartition(consumer.records()).get('0'),
        Array.from({ length: 1_000 }, (_, i) => i),
      );
      assert.deepEqual(statuses, ['memoryPaused', 'memoryResumed']);
    });
  });
}
