import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventHubConsumerClient, EventHubProducerClient, earliestEventPosition } from '@azure/event-hubs';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { collectEvents } from './sdk-helpers.ts';

test(
  'a dedicated-tier hub with 1024 partitions serves the SDK: every id listed, the last partition read and ' + 'written',
  async (t) => {
    const { emulator, hubName, connectionString, track } = await startTestEmulator(t, {
      partitions: 1024,
      tier: 'dedicated',
    });
    const producer = track(new EventHubProducerClient(connectionString));
    const props = await producer.getEventHubProperties();
    assert.equal(props.partitionIds.length, 1024);
    assert.equal(props.partitionIds[1023], '1023');
    await producer.sendBatch([{ body: 'last' }], { partitionId: '1023' });
    emulator.append(hubName, '512', [{ body: '"middle"' }]);
    assert.equal((await producer.getPartitionProperties('1023')).lastEnqueuedSequenceNumber, 0);
    const consumer = track(new EventHubConsumerClient('$Default', connectionString));
    assert.deepEqual(
      (await collectEvents(consumer, '1023', earliestEventPosition, 1)).map((e) => e.body),
      ['last'],
    );
    assert.deepEqual(
      (await collectEvents(consumer, '512', earliestEventPosition, 1)).map((e) => e.body),
      ['middle'],
    );
    await assert.rejects(producer.getPartitionProperties('1024'), /1024|out of range|partition/i);
  },
);

test('the default tier still refuses a hub over 32 partitions at start', async () => {
  await assert.rejects(startTestEmulator({ partitions: 33 }), /from 1 to 32 \(tier emulator\), got 33/);
});
