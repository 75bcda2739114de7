import type { LogBatch } from './log-batch.ts';

/**
 * The exporter contract. The returned promise resolving means the destination accepted the batch;
 * only then may the receiver checkpoint past it. Reject with a `PermanentError` when the batch will
 * never be accepted (it is dead-lettered); any other rejection is retried with backoff.
 * Implementations must stop promptly when `signal` aborts.
 */
export interface LogsConsumer {
  consume(batch: LogBatch, signal?: AbortSignal): Promise<void>;
  /** Flushes anything buffered. Optional. */
  forceFlush?(): Promise<void>;
  /** Releases resources. Optional; idempotent. */
  shutdown?(): Promise<void>;
  /**
   * Announces one upstream caller (a partition pump) with at most one `consume` outstanding at a time,
   * until the returned function is called. Optional; lets a batching stage know when nothing more can arrive.
   */
  attachProducer?(): () => void;
}
