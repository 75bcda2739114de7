import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventHubConsumerClient, earliestEventPosition, type CloseReason, type Subscription } from '@azure/event-hubs';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { waitFor } from './sdk-helpers.ts';

interface Watch {
  subscription: Subscription;
  received: number[];
  errors: Array<{ name: string; code?: string; message: string }>;
  closeReasons: CloseReason[];
}

function watch(consumer: EventHubConsumerClient, ownerLevel?: number): Watch {
  const w: Watch = { received: [], errors: [], closeReasons: [] } as unknown as Watch;
  w.subscription = consumer.subscribe(
    '0',
    {
      processEvents: async (events) => {
        for (const e of events) w.received.push(e.sequenceNumber);
      },
      processError: async (err) => {
        w.errors.push({ name: err.name, code: (err as { code?: string }).code, message: err.message });
      },
      processClose: async (reason) => {
        w.closeReasons.push(reason);
      },
    },
    {
      startPosition: earliestEventPosition,
      maxWaitTimeInSeconds: 1,
      ...(ownerLevel !== undefined ? { ownerLevel } : {}),
    },
  );
  return w;
}

test(
  'a higher owner level steals the partition with amqp:link:stolen and the audit shows one reader at a ' + 'time',
  async (t) => {
    const { emulator, hubName, connectionString, track } = await startTestEmulator(t, { partitions: 1 });
    emulator.append(hubName, '0', [{ body: '"a"' }]);
    const c1 = track(new EventHubConsumerClient('$Default', connectionString));
    const c2 = track(new EventHubConsumerClient('$Default', connectionString));
    const first = watch(c1, 1);
    track(first.subscription);
    await waitFor(() => first.received.length === 1, 10_000, 'first reader to receive');

    const second = watch(c2, 2);
    track(second.subscription);
    await waitFor(() => second.received.length === 1, 10_000, 'second reader to receive');
    await waitFor(
      () => first.errors.some((e) => e.code === 'ReceiverDisconnectedError'),
      10_000,
      'first reader to be disconnected',
    );
    const stolen = first.errors.find((e) => e.code === 'ReceiverDisconnectedError')!;
    assert.match(stolen.message, /higher epoch of '2'/);
    await waitFor(
      () => first.closeReasons.includes('OwnershipLost' as CloseReason),
      5_000,
      'the SDK to close the stolen partition with OwnershipLost',
    );

    // New events go to the owner only.
    emulator.append(hubName, '0', [{ body: '"b"' }]);
    await waitFor(() => second.received.length === 2, 10_000, 'owner to receive the new event');
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(first.received, [0]);

    const records = emulator.audit.records.filter((r) => r.partitionId === '0');
    const stolenRecord = records.find((r) => r.epoch === 1 && r.detachCondition === 'amqp:link:stolen');
    assert.ok(stolenRecord, `audit records the stolen link: ${JSON.stringify(records)}`);
    const ownerRecord = records.find((r) => r.epoch === 2)!;
    assert.ok(
      stolenRecord.detachedAt! <= ownerRecord.attachedAt,
      'the stolen link detached before the new one was accepted',
    );
    assert.deepEqual(emulator.audit.overlaps(), []);
  },
);

test('a lower owner level, or none, is refused while an epoch receiver holds the partition', async (t) => {
  const { emulator, hubName, connectionString, track } = await startTestEmulator(t, { partitions: 1 });
  emulator.append(hubName, '0', [{ body: '"a"' }]);
  const owner = watch(track(new EventHubConsumerClient('$Default', connectionString)), 5);
  track(owner.subscription);
  await waitFor(() => owner.received.length === 1, 10_000, 'owner to receive');

  const lower = watch(track(new EventHubConsumerClient('$Default', connectionString)), 4);
  track(lower.subscription);
  const none = watch(track(new EventHubConsumerClient('$Default', connectionString)));
  track(none.subscription);
  await waitFor(() => lower.errors.length > 0 && none.errors.length > 0, 10_000, 'refusals');
  assert.equal(lower.errors[0]!.code, 'ReceiverDisconnectedError');
  assert.equal(none.errors[0]!.code, 'ReceiverDisconnectedError');
  assert.match(lower.errors[0]!.message, /epoch '4'.*higher epoch '5'/);
  assert.match(none.errors[0]!.message, /non-epoch receiver is not allowed/);
  assert.deepEqual(lower.received, []);
  assert.deepEqual(none.received, []);
  assert.equal(owner.errors.length, 0, 'the owner keeps the partition');
  assert.deepEqual(emulator.audit.overlaps(), []);
});
