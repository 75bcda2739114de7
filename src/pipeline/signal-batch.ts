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
 * The unit handed to a SignalConsumer: what was decoded from one received batch of events. Log records are
 * OpenTelemetry `ReadableLogRecord`s, so any `LogRecordExporter` accepts them as they are. When the receiver
 * feeds metrics or traces pipelines, the metric points and spans decoded from the same events travel in
 * `metrics` and `spans` (absent or empty otherwise); each pipeline's head sees only its own signal (see
 * signal-router.ts), so a logs pipeline never carries metrics.
 */
export interface SignalBatch {
  readonly records: readonly ReadableLogRecord[];
  /** Metric points (metrics pipelines). Absent means none. */
  readonly metrics?: readonly MetricPoint[];
  /** Spans (traces pipelines). Absent means none. */
  readonly spans?: readonly SpanRecord[];
  /**
   * Log records already encoded as OTLP protobuf (decoded and encoded off the pipeline's thread: see
   * src/receiver/internal/decode-pool.ts), in addition to `records`. Only consumers that declare
   * `acceptsEncodedLogs` are ever given a batch with this part. Absent means none.
   */
  readonly encodedLogs?: EncodedLogs;
  readonly source: BatchSource;
}

/**
 * Log records as the bytes of an OTLP `ExportLogsServiceRequest` (opentelemetry-proto
 * collector/logs/v1/logs_service.proto). The request is `repeated ResourceLogs resource_logs = 1`, so two
 * such requests concatenated are one request holding both: that is how batches of them are combined.
 */
export interface EncodedLogs {
  readonly bytes: Uint8Array;
  /** Log records in `bytes`. */
  readonly records: number;
}

/** Items in a batch over all signals: log records, metric points and spans. */
export function batchItemCount(batch: SignalBatch): number {
  return logRecordCount(batch) + (batch.metrics?.length ?? 0) + (batch.spans?.length ?? 0);
}

/** Log records in a batch: the record objects and those already encoded. */
export function logRecordCount(batch: SignalBatch): number {
  return batch.records.length + (batch.encodedLogs?.records ?? 0);
}

/** One `EncodedLogs` holding all of `parts`, in order (concatenated requests are one request). */
export function concatEncodedLogs(parts: readonly EncodedLogs[]): EncodedLogs | undefined {
  if (parts.length <= 1) return parts[0];
  let records = 0;
  for (const p of parts) records += p.records;
  return { bytes: Buffer.concat(parts.map((p) => p.bytes)), records };
}
