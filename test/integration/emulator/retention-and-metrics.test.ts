import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventHubConsumerClient,
  EventHubProducerClient,
  earliestEventPosition,
  type LastEnqueuedEventProperties,
} from '@azure/event-hubs';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { collectEvents, waitFor } from './sdk-helpers.ts';

test(
  'events older than the retention expire: the first sequence number advances and a lagging reader skips ' + 'ahead',
  async (t) => {
    const { emulator, hubName, connectionString, track } = await startTestEmulator(t, {
      partitions: 1,
      retentionMs: 300,
    });
    const producer = track(new EventHubProducerClient(connectionString));
    const consumer = track(new EventHubConsumerClient('$Default', connectionString));
    // A reader positioned at sequence number 0 that gets nothing while the partition is paused: it lags.
    emulator.faults.pausePartition(hubName, '0');
    const reading = collectEvents(consumer, '0', { sequenceNumber: 0, isInclusive: true }, 1);
    await waitFor(() => emulator.audit.records.length === 1, 10_000, 'the reader to attach');
    emulator.append(
      hubName,
      '0',
      [1, 2, 3].map((n) => ({ body: String(n) })),
    );
    await new Promise((r) => setTimeout(r, 700));
    const expired = await producer.getPartitionProperties('0');
    assert.equal(expired.beginningSequenceNumber, 3, 'the three events expired');
    assert.equal(expired.isEmpty, true);
    assert.equal(expired.lastEnqueuedSequenceNumber, 2, 'the last enqueued event is still reported');

    // Resuming delivers at once, so the fresh event is sent well within its retention.
    emulator.append(hubName, '0', [{ body: '4' }]);
    emulator.faults.resumePartition(hubName, '0');
    const [first] = await reading;
    assert.equal(first!.sequenceNumber, 3, 'the lagging reader continues at the first retained event');
    assert.equal(first!.body, 4);
    const fromEarliest = await producer.getPartitionProperties('0');
    assert.ok(fromEarliest.beginningSequenceNumber >= 3);
    assert.equal(fromEarliest.lastEnqueuedSequenceNumber, 3);
  },
);

test('with trackLastEnqueuedEventProperties each delivery carries the runtime metrics', async (t) => {
  const { emulator, hubName, connectionString, track } = await startTestEmulator(t, { partitions: 1 });
  emulator.append(
    hubName,
    '0',
    [1, 2, 3, 4].map((n) => ({ body: String(n) })),
  );
  const consumer = track(new EventHubConsumerClient('$Default', connectionString));
  let last: LastEnqueuedEventProperties | undefined;
  let count = 0;
  const sub = track(
    consumer.subscribe(
      '0',
      {
        processEvents: async (events, context) => {
          count += events.length;
          if (events.length > 0) last = { ...context.lastEnqueuedEventProperties };
        },
        processError: async () => undefined,
      },
      {
        startPosition: earliestEventPosition,
        trackLastEnqueuedEventProperties: true,
        maxBatchSize: 1,
        maxWaitTimeInSeconds: 1,
      },
    ),
  );
  await waitFor(() => count >= 2, 10_000, 'events');
  await sub.close();
  const props = await track(new EventHubProducerClient(connectionString)).getPartitionProperties('0');
  assert.equal(last?.sequenceNumber, 3);
  assert.equal(last?.offset, props.lastEnqueuedOffset);
  assert.equal(last?.enqueuedOn?.getTime(), props.lastEnqueuedOnUtc.getTime());
  assert.ok(last?.retrievedOn instanceof Date && Math.abs(last.retrievedOn.getTime() - Date.now()) < 60_000);
});
