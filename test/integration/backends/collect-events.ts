import assert from 'node:assert/strict';
import type { PartitionReader, ReceivedEvent } from '../../../src/backends/consumer.ts';

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
