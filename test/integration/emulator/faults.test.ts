import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventHubConsumerClient,
  EventHubProducerClient,
  earliestEventPosition,
  type Subscription,
} from '@azure/event-hubs';
import type { Emulator } from '../../../src/emulator/index.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { FAST_RETRY, waitFor } from './sdk-helpers.ts';

interface Reader {
  subscription: Subscription;
  received: number[];
  errors: Array<{ code?: string; message: string }>;
}

function read(consumer: EventHubConsumerClient, partitionId = '0'): Reader {
  const r = { received: [] as number[], errors: [] as Array<{ code?: string; message: string }> } as Reader;
  r.subscription = consumer.subscribe(
    partitionId,
    {
      processEvents: async (events) => {
        for (const e of events) r.received.push(e.sequenceNumber);
      },
      processError: async (err) => {
        r.errors.push({ code: (err as { code?: string }).code, message: err.message });
      },
    },
    { startPosition: earliestEventPosition, maxWaitTimeInSeconds: 1 },
  );
  return r;
}

function append(emulator: Emulator, hub: string, from: number, count: number, partitionId = '0'): void {
  emulator.append(
    hub,
    partitionId,
    Array.from({ length: count }, (_, i) => ({ body: JSON.stringify({ n: from + i }) })),
  );
}

const seq = (n: number) => Array.from({ length: n }, (_, i) => i);

for (const condition of ['com.microsoft:server-busy', 'amqp:link:detach-forced', 'com.microsoft:timeout'] as const) {
  test(
    `detaching a receiver with ${condition} is retried by the SDK, which resumes without gaps or ` + `duplicates`,
    async (t) => {
      const { emulator, hubName, connectionString, track } = await startTestEmulator(t, { partitions: 1 });
      append(emulator, hubName, 0, 3);
      const reader = read(
        track(new EventHubConsumerClient('$Default', connectionString, { retryOptions: FAST_RETRY })),
      );
      track(reader.subscription);
      await waitFor(() => reader.received.length === 3, 10_000, 'first events');
      assert.equal(
        emulator.faults.detachReceivers({ hub: hubName, partitionId: '0', condition, description: 'injected' }),
        1,
      );
      append(emulator, hubName, 3, 3);
      await waitFor(() => reader.received.length === 6, 10_000, 'events after the reconnect');
      assert.deepEqual(reader.received, seq(6));
      const records = emulator.audit.records;
      assert.equal(records.length, 2, 'the SDK attached a new link');
      assert.equal(records[0]!.detachCondition, condition);
      assert.deepEqual(emulator.audit.overlaps(), []);
    },
  );
}

test('dropping connections abruptly or with amqp:connection:forced: the SDK reconnects and continues', async (t) => {
  const { emulator, hubName, connectionString, track } = await startTestEmulator(t, { partitions: 1 });
  append(emulator, hubName, 0, 2);
  const reader = read(track(new EventHubConsumerClient('$Default', connectionString, { retryOptions: FAST_RETRY })));
  track(reader.subscription);
  await waitFor(() => reader.received.length === 2, 10_000, 'first events');
  assert.equal(emulator.faults.dropConnections(), 1);
  append(emulator, hubName, 2, 2);
  await waitFor(() => reader.received.length === 4, 15_000, 'events after an abrupt drop');
  const containerId = emulator.audit.records.at(-1)!.connectionId;
  assert.equal(emulator.faults.dropConnections({ containerId: 'someone-else' }), 0);
  assert.equal(emulator.faults.dropConnections({ containerId, condition: 'amqp:connection:forced' }), 1);
  append(emulator, hubName, 4, 2);
  await waitFor(() => reader.received.length === 6, 15_000, 'events after a forced close');
  assert.deepEqual(reader.received, seq(6));
  assert.deepEqual(emulator.audit.overlaps(), []);
});

test('slow delivery delays each event; pause holds a partition until resumed', async (t) => {
  const { emulator, hubName, connectionString, track } = await startTestEmulator(t, { partitions: 2 });
  const consumer = track(new EventHubConsumerClient('$Default', connectionString, { retryOptions: FAST_RETRY }));
  emulator.faults.slowDelivery(150, { hub: hubName, partitionId: '0' });
  append(emulator, hubName, 0, 4);
  const started = Date.now();
  const slow = read(consumer, '0');
  track(slow.subscription);
  await waitFor(() => slow.received.length === 4, 10_000, 'slow events');
  assert.ok(Date.now() - started >= 4 * 150 - 20, `4 events at 150 ms each took ${Date.now() - started} ms`);

  emulator.faults.pausePartition(hubName, '1');
  const paused = read(consumer, '1');
  track(paused.subscription);
  await waitFor(() => emulator.audit.records.some((r) => r.partitionId === '1'), 5_000, 'receiver on partition 1');
  append(emulator, hubName, 0, 3, '1');
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(paused.received, [], 'nothing is delivered while paused');
  emulator.faults.resumePartition(hubName, '1');
  await waitFor(() => paused.received.length === 3, 10_000, 'events after resume');
});

test('the next management or CBS requests fail with the injected condition', async (t) => {
  const { emulator, connectionString, track } = await startTestEmulator(t, { partitions: 1 });
  const producer = track(
    new EventHubProducerClient(connectionString, { retryOptions: { ...FAST_RETRY, maxRetries: 0 } }),
  );
  await producer.getEventHubProperties(); // opens the links, so the next request is the one that fails
  emulator.faults.failNextRequests('management', 1, 'com.microsoft:server-busy', 'busy now');
  await assert.rejects(
    producer.getPartitionProperties('0'),
    (err: any) => err.code === 'ServerBusyError' && /busy now/.test(err.message),
  );
  assert.equal((await producer.getPartitionProperties('0')).partitionId, '0', 'only the next request fails');

  const other = track(new EventHubProducerClient(connectionString, { retryOptions: { ...FAST_RETRY, maxRetries: 0 } }));
  emulator.faults.failNextRequests('cbs', 1, 'amqp:unauthorized-access', 'no entry');
  await assert.rejects(other.getEventHubProperties(), (err: any) => err.code === 'UnauthorizedError');
  emulator.faults.reset();
  assert.equal((await other.getEventHubProperties()).partitionIds.length, 1);
});

test('receivers for unknown consumer groups and partitions get the service errors', async (t) => {
  const { connectionString, consumerGroup, track } = await startTestEmulator(t, { partitions: 2 });
  const unknownGroup = read(
    track(new EventHubConsumerClient('nosuchgroup', connectionString, { retryOptions: FAST_RETRY })),
  );
  track(unknownGroup.subscription);
  const unknownPartition = read(
    track(new EventHubConsumerClient('$Default', connectionString, { retryOptions: FAST_RETRY })),
    '7',
  );
  track(unknownPartition.subscription);
  const known = read(track(new EventHubConsumerClient(consumerGroup, connectionString, { retryOptions: FAST_RETRY })));
  track(known.subscription);
  await waitFor(() => unknownGroup.errors.length > 0 && unknownPartition.errors.length > 0, 10_000, 'errors');
  assert.equal(unknownGroup.errors[0]!.code, 'MessagingEntityNotFoundError');
  assert.match(unknownGroup.errors[0]!.message, /ConsumerGroups\/nosuchgroup' could not be found/);
  assert.equal(unknownPartition.errors[0]!.code, 'ArgumentOutOfRangeError');
  assert.deepEqual(known.errors, [], 'the configured random consumer group exists');
});
