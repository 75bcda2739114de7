import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { startAzurite, randomName } from '../../helpers/azurite.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import type { ReceiverStatus } from '../../../src/receiver/receiver-status.ts';
import { byPartition, preload, startReceiver, until } from './harness.ts';

/**
 * Long enough for a receiver to claim its lease and open the partition before the events it must read
 * expire, even on a loaded machine (5 s was not, with the whole suite running on two cores).
 */
const RETENTION_MS = 12_000;

test('a checkpoint older than the first retained event is reported with the number of events lost to retention', {
  timeout: 90_000,
}, async (t) => {
  const azurite = await startAzurite();
  t.after(() => azurite.stop());
  const { emulator, hubName, connectionString } = await startTestEmulator(t, {
    partitions: 1,
    retentionMs: RETENTION_MS,
  });
  const config = {
    connection: connectionString,
    format: 'raw' as const,
    start_position: 'earliest',
    blob_checkpoint_store: {
      connection: azurite.connectionString,
      container_name: randomName('ret'),
      create_container: true,
    },
  };
  // The partition is read under a lease (a fixed partition with blob_checkpoint_store is refused, as in the
  // Go receiver); events are appended once it is open, so the short retention cannot expire them first.
  const first = new InMemorySignalConsumer();
  const a = startReceiver(t, config, first);
  const aOpened = opened(a);
  await a.start();
  await aOpened;
  preload(emulator, hubName, 1, 10);
  await first.waitFor(10, 30_000);
  await a.shutdown(); // final checkpoint: sequence number 9

  // While nobody reads, 10 more events arrive and expire; then 5 more arrive.
  preload(emulator, hubName, 1, 10);
  // Retention plus the emulator's sweep (at most 1 s) plus a margin; then 5 more arrive, read within retention.
  await new Promise((r) => setTimeout(r, RETENTION_MS + 1_500));
  preload(emulator, hubName, 1, 5);

  const second = new InMemorySignalConsumer();
  const b = startReceiver(t, config, second);
  const statuses: ReceiverStatus[] = [];
  b.onStatus((s) => statuses.push(s));
  await b.start();
  await second.waitFor(5, 30_000);
  await until(() => statuses.some((s) => s.type === 'retentionGap'), 5_000, 'retentionGap status');
  await b.shutdown();
  const gap = statuses.find((s) => s.type === 'retentionGap');
  assert.deepEqual(
    gap && { lost: gap.eventsLost, checkpoint: gap.checkpointSequenceNumber, first: gap.firstRetainedSequenceNumber },
    { lost: 10, checkpoint: 9, first: 20 },
  );
  assert.equal(b.stats().counters.eventsLostToRetention, 10);
  assert.deepEqual(byPartition(second.records()).get('0'), [20, 21, 22, 23, 24]);
});

/** Resolves when the receiver opened a partition (it holds the lease and reads). */
function opened(receiver: { onStatus(listener: (s: ReceiverStatus) => void): () => void }): Promise<void> {
  return new Promise((resolve) => {
    const off = receiver.onStatus((s) => {
      if (s.type !== 'partitionOpened') return;
      off();
      resolve();
    });
  });
}
