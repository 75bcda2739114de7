import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { startAzurite, randomName } from '../../helpers/azurite.ts';
import { InMemoryLogsConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import type { ReceiverStatus } from '../../../src/receiver/receiver-status.ts';
import { byPartition, preload, startReceiver, until } from './harness.ts';

test('a checkpoint older than the first retained event is reported with the number of events lost to retention', { timeout: 90_000 }, async (t) => {
  const azurite = await startAzurite();
  t.after(() => azurite.stop());
  const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: 1, retentionMs: 1_500 });
  const config = {
    connection: connectionString,
    format: 'raw' as const,
    start_position: 'earliest',
    partition: '0',
    blob_checkpoint_store: { connection: azurite.connectionString, container_name: randomName('ret'), create_container: true },
  };
  preload(emulator, hubName, 1, 10);
  const first = new InMemoryLogsConsumer();
  const a = startReceiver(t, config, first);
  await a.start();
  await first.waitFor(10, 30_000);
  await a.shutdown(); // final checkpoint: sequence number 9

  // While nobody reads, 10 more events arrive and expire; then 5 more arrive.
  preload(emulator, hubName, 1, 10);
  await new Promise((r) => setTimeout(r, 2_500));
  preload(emulator, hubName, 1, 5);

  const second = new InMemoryLogsConsumer();
  const b = startReceiver(t, config, second);
  const statuses: ReceiverStatus[] = [];
  b.onStatus((s) => statuses.push(s));
  await b.start();
  await second.waitFor(5, 30_000);
  await until(() => statuses.some((s) => s.type === 'retentionGap'), 5_000, 'retentionGap status');
  await b.shutdown();
  const gap = statuses.find((s) => s.type === 'retentionGap');
  assert.deepEqual(gap && { lost: gap.eventsLost, checkpoint: gap.checkpointSequenceNumber, first: gap.firstRetainedSequenceNumber }, { lost: 10, checkpoint: 9, first: 20 });
  assert.equal(b.stats().counters.eventsLostToRetention, 10);
  assert.deepEqual(byPartition(second.records()).get('0'), [20, 21, 22, 23, 24]);
});
