import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { SignalBatch } from './signal-batch.ts';
import type { Refusal } from './partial-refusal.ts';
import type { MetricPoint, Signal, SpanRecord } from './signals.ts';

/** The items of one signal: log records, metric points or spans. */
export type SignalItem<S extends Signal> = S extends 'logs'
  ? ReadableLogRecord
  : S extends 'metrics'
    ? MetricPoint
    : SpanRecord;

/** What a single item of each signal is called in messages. */
export const ITEM_NAMES: Readonly<Record<Signal, string>> = { logs: 'record', metrics: 'metric point', traces: 'span' };

/** The batch's items of `signal` (empty when it has none). */
export function signalItems<S extends Signal>(batch: SignalBatch, signal: S): readonly SignalItem<S>[] {
  const items = signal === 'logs' ? batch.records : signal === 'metrics' ? batch.metrics : batch.spans;
  return (items ?? []) as readonly SignalItem<S>[];
}

/** A batch with the same source holding only `items`, of `signal`. */
export function batchOf<S extends Signal>(batch: SignalBatch, signal: S, items: readonly SignalItem<S>[]): SignalBatch {
  if (signal === 'logs') return { records: items as readonly ReadableLogRecord[], source: batch.source };
  if (signal === 'metrics') return { records: [], metrics: items as readonly MetricPoint[], source: batch.source };
  return { records: [], spans: items as readonly SpanRecord[], source: batch.source };
}

/** A refusal of `items`, of `signal`, for `error`. */
export function refusalOf<S extends Signal>(signal: S, items: readonly SignalItem<S>[], error: Error): Refusal {
  if (signal === 'logs') return { records: items as readonly ReadableLogRecord[], error };
  if (signal === 'metrics') return { records: [], metrics: items as readonly MetricPoint[], error };
  return { records: [], spans: items as readonly SpanRecord[], error };
}
