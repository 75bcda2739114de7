import type { ReceivedEvent } from '../../backends/consumer.ts';
import type { LogBatch } from '../../pipeline/log-batch.ts';
import { isPartialRefusal } from '../../pipeline/partial-refusal.ts';
import { ATTR_EVENTHUBS_SEQUENCE_NUMBER } from '../../decode/internal/event-attributes.ts';

/** An event to dead-letter and the reason its records were refused. */
export interface RefusedEvent {
  readonly event: ReceivedEvent;
  readonly error: Error;
}

/**
 * The events behind the records a `PartialRefusalError` lists, each with the first reason given for one
 * of its records; `records` counts the refused records. An event is found through its records' sequence
 * number attribute (`azure.eventhubs.message.sequence_number`, which the decoders put on every record).
 * An event with one refused record is dead-lettered whole: replaying it repeats its delivered records
 * (at-least-once), it never loses one.
 *
 * Undefined when `error` is not a partial refusal, or when a refused record cannot be traced to an event of
 * the batch (a record made by a custom decoder): the caller then dead-letters the whole batch, which
 * loses nothing either.
 */
export function refusedEvents(
  error: unknown,
  batch: LogBatch,
  events: readonly ReceivedEvent[],
): { events: RefusedEvent[]; records: number } | undefined {
  if (!isPartialRefusal(error)) return undefined;
  const bySequence = new Map<number, ReceivedEvent>();
  for (const event of events) bySequence.set(event.sequenceNumber, event);
  const inBatch = new Set(batch.records);
  const reasons = new Map<ReceivedEvent, Error>();
  // A record two exporters refused (a fan-out) counts once.
  const seen = new Set<unknown>();
  for (const refusal of error.refusals) {
    for (const record of refusal.records) {
      if (!inBatch.has(record)) return undefined;
      const event = bySequence.get(Number(record.attributes[ATTR_EVENTHUBS_SEQUENCE_NUMBER]));
      if (!event) return undefined;
      seen.add(record);
      if (!reasons.has(event)) reasons.set(event, refusal.error);
    }
  }
  if (reasons.size === 0) return undefined;
  // In the hub's order, as whole batches are written.
  const refused = events.filter((e) => reasons.has(e)).map((event) => ({ event, error: reasons.get(event)! }));
  return { events: refused, records: seen.size };
}
