import type { SignalBatch } from './signal-batch.ts';

/**
 * The exporter contract. The returned promise resolving means the destination accepted the batch (all of
 * its parts: log records, and the metric points and spans it may carry); only then may the receiver
 * checkpoint past it. A pipeline's head gets one signal (signal-router.ts). Reject with a `PermanentError` when the batch will
 * never be accepted (it is dead-lettered); any other rejection is retried with backoff.
 * Implementations must stop promptly when `signal` aborts.
 */
export interface SignalConsumer {
  consume(batch: SignalBatch, signal?: AbortSignal): Promise<void>;
  /** Flushes anything buffered. Optional. */
  forceFlush?(): Promise<void>;
  /** Releases resources. Optional; idempotent. */
  shutdown?(): Promise<void>;
  /**
   * Announces one upstream caller (e.g. a partition pump) that has at most one `consume()` call
   * outstanding at a time, until the returned detach function is called (detaching twice is harmless).
   * Optional, for both sides: a caller need not announce itself, and a consumer need not implement it.
   *
   * A buffering consumer uses the count to know when nothing more can arrive: once every attached
   * caller is waiting on it, waiting longer for more records only delays them all (the `batch`
   * processor then exports at once instead of waiting out its timeout). A wrapper forwards the call to
   * what it wraps (to each, for a fan-out) and returns a function that detaches from all of them.
   */
  attachProducer?(): () => void;
  /**
   * True when `consume` takes batches whose log records come pre-encoded (`SignalBatch.encodedLogs`, OTLP
   * protobuf) and delivers them as it would deliver the same records as objects. A receiver decodes and
   * encodes on worker threads only for a consumer that says so (docs/configuration.md, `decode_workers`).
   * A wrapper says so when what it wraps does and it passes batches through without reading their records
   * (it may count them: `batchItemCount`). Optional; absent means false.
   */
  readonly acceptsEncodedLogs?: boolean;
}
