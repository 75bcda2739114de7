import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';

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
 * The unit handed to a LogsConsumer: the log records decoded from one received batch of events.
 * Records are OpenTelemetry `ReadableLogRecord`s, so any `LogRecordExporter` accepts them as they are.
 */
export interface LogBatch {
  readonly records: readonly ReadableLogRecord[];
  readonly source: BatchSource;
}
