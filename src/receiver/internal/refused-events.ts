import type { ReceivedEvent } from '../../backends/consumer.ts';
import { logRecordCount, type SignalBatch } from '../../pipeline/signal-batch.ts';
import { itemEventSequenceNumber, type Signal } from '../../pipeline/signals.ts';
import { isPartialRefusal } from '../../pipeline/partial-refusal.ts';
import { ATTR_EVENTHUBS_SEQUENCE_NUMBER } from '../../decode/index.ts';

/** An event to dead-letter and the reason its items were refused. */
export interface RefusedEvent {
  readonly event: ReceivedEvent;
  readonly error: Error;
  /** The signals whose items from this event were refused, when known. */
  readonly signals?: readonly Signal[];
}

/** Items of a batch by signal. */
export interface ItemCounts {
  readonly records: number;
  readonly metricPoints: number;
  readonly spans: number;
}

/** The signals `batch` has items of. */
export function batchSignals(batch: SignalBatch): Signal[] {
  const out: Signal[] = [];
  if (logRecordCount(batch) > 0) out.push('logs');
  if (batch.metrics?.length) out.push('metrics');
  if (batch.spans?.length) out.push('traces');
  return out;
}

/** The items of `batch` by signal. */
export function itemCounts(batch: SignalBatch): ItemCounts {
  return { records: logRecordCount(batch), metricPoints: batch.metrics?.length ?? 0, spans: batch.spans?.length ?? 0 };
}

type Item = { readonly attributes: Readonly<Record<string, unknown>> };

/**
 * The events behind the items a `PartialRefusalError` lists (log records, metric points, spans), each with
 * the first reason given for one of its items; `refused` counts the refused items per signal. An event is
 * found through its items' sequence number attribute (`azure.eventhubs.message.sequence_number`, which the
 * decoders put on every log record). An event with one refused item is dead-lettered whole: replaying it
 * repeats its delivered items, of every signal (at-least-once), it never loses one.
 *
 * Undefined when `error` is not a partial refusal, or when a refused item cannot be traced to an event of
 * the batch (a record made by a custom decoder, or a metric point or span without the attribute): the
 * caller then dead-letters the whole batch, which loses nothing either.
 */
export function refusedEvents(
  error: unknown,
  batch: SignalBatch,
  events: readonly ReceivedEvent[],
): { events: RefusedEvent[]; refused: ItemCounts } | undefined {
  if (!isPartialRefusal(error)) return undefined;
  const bySequence = new Map<number, ReceivedEvent>();
  for (const event of events) bySequence.set(event.sequenceNumber, event);
  const inBatch = new Set<unknown>([...batch.records, ...(batch.metrics ?? []), ...(batch.spans ?? [])]);
  const reasons = new Map<ReceivedEvent, Error>();
  const signalsOf = new Map<ReceivedEvent, Set<Signal>>();
  // An item two exporters refused (a fan-out) counts once.
  const seen = { records: new Set<unknown>(), metricPoints: new Set<unknown>(), spans: new Set<unknown>() };
  for (const refusal of error.refusals) {
    const lists: [keyof typeof seen, Signal, readonly Item[]][] = [
      ['records', 'logs', refusal.records],
      ['metricPoints', 'metrics', refusal.metrics ?? []],
      ['spans', 'traces', refusal.spans ?? []],
    ];
    for (const [kind, signal, items] of lists) {
      for (const item of items) {
        if (!inBatch.has(item)) return undefined;
        const event = bySequence.get(
          itemEventSequenceNumber(item) ?? Number(item.attributes[ATTR_EVENTHUBS_SEQUENCE_NUMBER]),
        );
        if (!event) return undefined;
        seen[kind].add(item);
        if (!reasons.has(event)) reasons.set(event, refusal.error);
        let signals = signalsOf.get(event);
        if (!signals) signalsOf.set(event, (signals = new Set()));
        signals.add(signal);
      }
    }
  }
  if (reasons.size === 0) return undefined;
  // In the hub's order, as whole batches are written.
  const order = (s: Set<Signal>) => (['logs', 'metrics', 'traces'] as const).filter((x) => s.has(x));
  const refused = events
    .filter((e) => reasons.has(e))
    .map((event) => ({ event, error: reasons.get(event)!, signals: order(signalsOf.get(event)!) }));
  return {
    events: refused,
    refused: { records: seen.records.size, metricPoints: seen.metricPoints.size, spans: seen.spans.size },
  };
}
