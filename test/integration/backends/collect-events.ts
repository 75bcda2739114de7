import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { Receiver } from 'rhea-promise';
import type { PartitionReader, ReceivedEvent } from '../../../src/backends/consumer.ts';
import type { EmulatorEventInput } from '../../../src/emulator/index.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';

/** An emulator for test `t` whose hub has one partition holding `count` events, event i made by `eventAt(i)`. */
export async function onePartitionHub(
  t: TestContext,
  count: number,
  eventAt: (i: number) => EmulatorEventInput,
): Promise<{ connectionString: string; consumerGroup: string }> {
  const { emulator, hubName, consumerGroup, connectionString } = await startTestEmulator(t, { partitions: 1 });
  emulator.append(
    hubName,
    '0',
    Array.from({ length: count }, (_, i) => eventAt(i)),
  );
  return { connectionString, consumerGroup };
}

/** Receives from `reader` until `count` events came or `timeoutMs` passed, in receives of up to `batch`. */
export async function collectEvents(
  reader: PartitionReader,
  count: number,
  timeoutMs: number,
  batch = 50,
): Promise<ReceivedEvent[]> {
  const out: ReceivedEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  while (out.length < count && Date.now() < deadline)
    out.push(...(await reader.receive(batch, 300, AbortSignal.timeout(timeoutMs))));
  return out;
}

/** The `count` events of a partition read from its start, then the reader closed; asserts none is missing. */
export async function drainInOrder(
  reader: PartitionReader,
  count: number,
  timeoutMs: number,
  batch: number,
): Promise<ReceivedEvent[]> {
  const events = await collectEvents(reader, count, timeoutMs, batch);
  await reader.close();
  assert.deepEqual(
    events.map((e) => e.sequenceNumber),
    Array.from({ length: count }, (_, i) => i),
  );
  return events;
}

/** An event body as the JSON it holds. */
export const bodyJson = (event: ReceivedEvent): unknown => JSON.parse(Buffer.from(event.body).toString('utf8'));

/**
 * Watches rhea-promise receivers' `message` events for the rest of test `t`: returns what reads the contexts of
 * those raised on partition links so far. The token exchange ($cbs) answers on a receiver of its own (unsettled,
 * through rhea): not counted.
 */
export function partitionMessageEvents(t: TestContext): () => { delivery?: object }[] {
  const emit = t.mock.method(Receiver.prototype, 'emit');
  return () =>
    emit.mock.calls
      .filter((c) => c.arguments[0] === 'message' && String((c.this as Receiver).address).includes('/Partitions/'))
      .map((c) => c.arguments[1] as { delivery?: object });
}
