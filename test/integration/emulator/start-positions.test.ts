import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventHubConsumerClient,
  earliestEventPosition,
  latestEventPosition,
  type EventPosition,
} from '@azure/event-hubs';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { collectEvents } from './sdk-helpers.ts';

test('every start position, inclusive and exclusive, starts where the service would', async (t) => {
  const { emulator, hubName, connectionString, track } = await startTestEmulator(t, { partitions: 1 });
  emulator.append(
    hubName,
    '0',
    [0, 1, 2, 3, 4].map((i) => ({ body: JSON.stringify({ i }) })),
  );
  const consumer = track(new EventHubConsumerClient('$Default', connectionString));
  const all = await collectEvents(consumer, '0', earliestEventPosition, 5);
  assert.deepEqual(
    all.map((e) => e.sequenceNumber),
    [0, 1, 2, 3, 4],
  );
  const offsetOf2 = all[2]!.offset;
  assert.notEqual(offsetOf2, '2', 'offsets differ from sequence numbers, so mixing them up would fail below');

  const first = async (position: EventPosition) => (await collectEvents(consumer, '0', position, 1))[0]!.sequenceNumber;
  assert.equal(await first({ sequenceNumber: 2 }), 3, 'sequence number, exclusive');
  assert.equal(await first({ sequenceNumber: 2, isInclusive: true }), 2, 'sequence number, inclusive');
  assert.equal(await first({ offset: offsetOf2 }), 3, 'offset, exclusive');
  assert.equal(await first({ offset: offsetOf2, isInclusive: true }), 2, 'offset, inclusive');

  // Enqueued time: events appended later get later times; the filter is strictly after the given time.
  const t0 = all[4]!.enqueuedTimeUtc;
  await new Promise((r) => setTimeout(r, 5));
  emulator.append(hubName, '0', [{ body: '"late"' }]);
  assert.equal(await first({ enqueuedOn: t0 }), 5, 'enqueued time');
  assert.equal(await first({ enqueuedOn: new Date(t0.getTime() - 1) }), 0, 'enqueued time before all events');

  // Latest: nothing old arrives, only what is sent after the receiver attached.
  const latest = collectEvents(consumer, '0', latestEventPosition, 1, { timeoutMs: 10_000 });
  await waitForReceivers(emulator, 1);
  emulator.append(hubName, '0', [{ body: '"new"' }]);
  const [fresh] = await latest;
  assert.equal(fresh!.sequenceNumber, 6);
  assert.equal(fresh!.body, 'new');
});

/** Waits until `count` receiver links are attached (open) in the audit. */
async function waitForReceivers(
  emulator: { audit: { records: readonly { detachedAt?: number }[] } },
  count: number,
): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (emulator.audit.records.filter((r) => r.detachedAt === undefined).length < count) {
    if (Date.now() > deadline) throw new Error('receiver did not attach');
    await new Promise((r) => setTimeout(r, 10));
  }
}
