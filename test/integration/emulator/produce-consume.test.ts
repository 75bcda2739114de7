import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventHubConsumerClient,
  EventHubProducerClient,
  earliestEventPosition,
  type ReceivedEventData,
} from '@azure/event-hubs';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { collectEvents } from './sdk-helpers.ts';

test(
  'the SDK producer and consumer round-trip events through the emulator with hub and partition ' + 'properties',
  async (t) => {
    const { emulator, hubName, connectionString, track } = await startTestEmulator(t, { partitions: 3 });
    const producer = track(new EventHubProducerClient(connectionString));

    const hub = await producer.getEventHubProperties();
    assert.equal(hub.name, hubName);
    assert.deepEqual(hub.partitionIds, ['0', '1', '2']);
    assert.ok(hub.createdOn instanceof Date && !Number.isNaN(hub.createdOn.getTime()));

    const empty = await producer.getPartitionProperties('1');
    assert.equal(empty.isEmpty, true);
    assert.equal(empty.lastEnqueuedSequenceNumber, -1);
    assert.equal(empty.beginningSequenceNumber, 0);

    const batch = await producer.createBatch({ partitionId: '1' });
    assert.equal(
      batch.maxSizeInBytes,
      1_048_576,
      'the SDK sizes batches from the max_message_size of our attach reply',
    );
    for (let i = 0; i < 3; i++) {
      assert.ok(
        batch.tryAdd({
          body: { i },
          properties: { n: i, s: `v${i}` },
          contentType: 'application/json',
          messageId: `m${i}`,
        }),
      );
    }
    await producer.sendBatch(batch);

    const props = await producer.getPartitionProperties('1');
    assert.equal(props.isEmpty, false);
    assert.equal(props.lastEnqueuedSequenceNumber, 2);
    assert.equal(typeof props.lastEnqueuedOffset, 'string');
    assert.ok(Number(props.lastEnqueuedOffset) > 0, 'offsets are byte positions, not sequence numbers');

    const consumer = track(new EventHubConsumerClient('$Default', connectionString));
    const events: ReceivedEventData[] = await collectEvents(consumer, '1', earliestEventPosition, 3);
    assert.deepEqual(
      events.map((e) => e.sequenceNumber),
      [0, 1, 2],
    );
    assert.deepEqual(
      events.map((e) => e.body),
      [{ i: 0 }, { i: 1 }, { i: 2 }],
    );
    assert.deepEqual(events[2]!.properties, { n: 2, s: 'v2' });
    assert.equal(events[1]!.messageId, 'm1');
    assert.equal(events[1]!.contentType, 'application/json');
    assert.equal(events[0]!.offset, '0');
    assert.equal(events[2]!.offset, props.lastEnqueuedOffset);
    assert.ok(events[0]!.enqueuedTimeUtc instanceof Date);
    assert.equal(emulator.audit.records.length >= 1, true);
  },
);

test('append() preloads events that the SDK consumer reads with their properties and partition key', async (t) => {
  const { emulator, hubName, connectionString, track } = await startTestEmulator(t, { partitions: 1 });
  emulator.append(hubName, '0', [
    { body: '{"hello":"world"}', properties: { a: 1 } },
    { body: Buffer.from([1, 2, 3]), partitionKey: 'k' },
  ]);
  const consumer = track(new EventHubConsumerClient('$Default', connectionString));
  const events = await collectEvents(consumer, '0', earliestEventPosition, 2);
  // A string body is stored as its UTF-8 bytes; the SDK parses JSON bodies.
  assert.deepEqual(events[0]!.body, { hello: 'world' });
  assert.deepEqual(events[0]!.properties, { a: 1 });
  assert.deepEqual(Buffer.from(events[1]!.body), Buffer.from([1, 2, 3]));
  assert.equal(events[1]!.partitionKey, 'k');
  assert.throws(() => emulator.append(hubName, '7', [{ body: 'x' }]), /no partition '7'/);
});

test('startTestEmulator(options) without a test context still cleans up after the file', async () => {
  const { emulator, hubName, connectionString, track } = await startTestEmulator({ partitions: 3 });
  const producer = track(new EventHubProducerClient(connectionString));
  assert.deepEqual((await producer.getEventHubProperties()).partitionIds, ['0', '1', '2']);
  assert.equal(hubName.length > 3, true);
  assert.ok(emulator.port > 0);
});
