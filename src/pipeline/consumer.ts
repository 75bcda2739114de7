import type { SignalBatch } from './signal-batch.ts';

/**
 * The exporter contract. The returned promise resolving means the destination accepted the batch (all of
 * its parts: log records, and the metric points and spans it may carry); only then may the receiver
 * checkpoint past it. A pipeline's head gets one signal (signal-router.ts). Reject with a `PermanentError` when the
 * batch will
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
   * Announces one upstream caller (e.g. a partition pump, which may have several `consume()` calls
   * outstanding: `max_batches_in_flight`), until the returned detach function is called (detaching twice is
   * harmless). Optional, for both sides: a caller need not announce itself, and a consumer need not
   * implement it.
   *
   * A buffering consumer uses the count to know when waiting longer only delays: once it holds as many
   * calls as callers are attached (with one call each, every caller waits on it and nothing more can
   * arrive), the `batch` processor exports at once instead of waiting out its timeout. A wrapper forwards the call to
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
