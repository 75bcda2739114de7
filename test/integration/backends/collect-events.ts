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
