import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { MetricPoint, SpanRecord } from './signals.ts';

/** Where a batch came from: enough to identify every record's event and to dead-letter it. */
export interface BatchSource {
  readonly namespace: string;
  readonly eventHubName: string;
  readonly consumerGroup: string;
  readonly partitionId: string;
  readonly firstSequenceNumber: number;
  readonly lastSequenceNumber: number;
}

/**
 * The unit handed to a LogsConsumer: what was decoded from one received batch of events. Log records are
 * OpenTelemetry `ReadableLogRecord`s, so any `LogRecordExporter` accepts them as they are. When the receiver
 * feeds metrics or traces pipelines, the metric points and spans decoded from the same events travel in
 * `metrics` and `spans` (absent or empty otherwise); each pipeline's head sees only its own signal (see
 * signal-router.ts), so a logs pipeline never carries metrics.
 */
export interface LogBatch {
  readonly records: readonly ReadableLogRecord[];
  /** Metric points (metrics pipelines). Absent means none. */
  readonly metrics?: readonly MetricPoint[];
  /** Spans (traces pipelines). Absent means none. */
  readonly spans?: readonly SpanRecord[];
  readonly source: BatchSource;
}

/** The same batch under a signal-neutral name. */
export type TelemetryBatch = LogBatch;

/** Items in a batch over all signals: log records, metric points and spans. */
export function batchItemCount(batch: LogBatch): number {
  return batch.records.length + (batch.metrics?.length ?? 0) + (batch.spans?.length ?? 0);
}
