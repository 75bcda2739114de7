import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { PermanentError } from '../component/errors.ts';
import type { MetricPoint, SpanRecord } from './signals.ts';

/**
 * Items refused for good, and why: log records, and (optional, absent means none) metric points and spans.
 * A refusal names the items themselves (the objects of the batch), so each stage can tell whose they were.
 */
export interface Refusal {
  readonly records: readonly ReadableLogRecord[];
  /** Metric points refused. Absent means none. */
  readonly metrics?: readonly MetricPoint[];
  /** Spans refused. Absent means none. */
  readonly spans?: readonly SpanRecord[];
  readonly error: Error;
}

/** Items a refusal names over all signals. */
export function refusalItemCount(refusal: Refusal): number {
  return refusal.records.length + (refusal.metrics?.length ?? 0) + (refusal.spans?.length ?? 0);
}

/**
 * A consumer delivered part of a batch and refused the rest for good (e.g. one record larger than any
 * request may be, while the others went out in requests of their own; or a metrics pipeline refused its
 * points while the logs pipeline accepted the records of the same events). Permanent, so nothing retries
 * the batch; the receiver writes only the refused items' events to its dead-letter store and counts the rest
 * as delivered. Wrappers pass it on: a fan-out or the signal router merges those of several consumers, the
 * `batch` processor hands each caller the refusals of its own items.
 */
export class PartialRefusalError extends PermanentError {
  readonly refusals: readonly Refusal[];
  /** Items of the batch (over all signals) that were delivered. */
  readonly delivered: number;
  constructor(refusals: readonly Refusal[], delivered: number) {
    const refused = refusals.reduce((n, r) => n + refusalItemCount(r), 0);
    const reasons = [...new Set(refusals.map((r) => r.error.message))];
    const onlyLogs = refusals.every((r) => !r.metrics?.length && !r.spans?.length);
    const what = onlyLogs ? 'record(s)' : 'item(s)';
    super(`${refused} ${what} refused, ${delivered} delivered: ${reasons.join('; ')}`, { cause: refusals[0]?.error });
    this.refusals = refusals;
    this.delivered = delivered;
  }

  /** The log records refused, each once. */
  refusedRecords(): Set<ReadableLogRecord> {
    return new Set(this.refusals.flatMap((r) => r.records));
  }

  /** The metric points refused, each once. */
  refusedMetrics(): Set<MetricPoint> {
    return new Set(this.refusals.flatMap((r) => r.metrics ?? []));
  }

  /** The spans refused, each once. */
  refusedSpans(): Set<SpanRecord> {
    return new Set(this.refusals.flatMap((r) => r.spans ?? []));
  }

  /** Items refused over all signals, each counted once. */
  refusedItemCount(): number {
    return this.refusedRecords().size + this.refusedMetrics().size + this.refusedSpans().size;
  }
}

export function isPartialRefusal(error: unknown): error is PartialRefusalError {
  return error instanceof PartialRefusalError;
}

/**
 * A request the destination refuses for its size, or a record too large for any request: permanent for
 * these bytes. `limitBytes` is the limit in force when known (ours, or the one the server named);
 * `sizeBytes` the size of what was refused, when known. Raised by the OTLP exporters for gRPC
 * RESOURCE_EXHAUSTED without RetryInfo and HTTP 413 (`otlp` and `otlphttp` split and retry the halves),
 * and by the request-size bound for a single record over `max_request_bytes`.
 */
export class RequestTooLargeError extends PermanentError {
  readonly limitBytes: number | undefined;
  readonly sizeBytes: number | undefined;
  constructor(message: string, sizes: { limitBytes?: number; sizeBytes?: number } = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.limitBytes = sizes.limitBytes;
    this.sizeBytes = sizes.sizeBytes;
  }
}

export function isRequestTooLarge(error: unknown): error is RequestTooLargeError {
  return error instanceof RequestTooLargeError;
}
