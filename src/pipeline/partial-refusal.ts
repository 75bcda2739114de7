import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { PermanentError } from '../component/errors.ts';
import type { MetricPoint, SpanRecord } from './signals.ts';

/** Records (and metric points, spans) refused for good, and why. */
export interface Refusal {
  readonly records: readonly ReadableLogRecord[];
  /** Metric points refused with the same reason. Absent means none. */
  readonly metrics?: readonly MetricPoint[];
  /** Spans refused with the same reason. Absent means none. */
  readonly spans?: readonly SpanRecord[];
  readonly error: Error;
}

/** Items a refusal lists, over all signals. */
function refusedCount(refusal: Refusal): number {
  return refusal.records.length + (refusal.metrics?.length ?? 0) + (refusal.spans?.length ?? 0);
}

/**
 * A consumer delivered part of a batch and refused the rest for good (e.g. one record larger than any
 * request may be, while the others went out in requests of their own). Permanent, so nothing retries the
 * batch; the receiver writes only the refused records' events to its dead-letter store and counts the rest
 * as delivered. Wrappers pass it on: a fan-out merges those of several consumers, the `batch` processor
 * hands each caller the refusals of its own records.
 */
export class PartialRefusalError extends PermanentError {
  readonly refusals: readonly Refusal[];
  /** Items (records, metric points, spans) of the batch that were delivered. */
  readonly delivered: number;
  constructor(refusals: readonly Refusal[], delivered: number) {
    const refused = refusals.reduce((n, r) => n + refusedCount(r), 0);
    const reasons = [...new Set(refusals.map((r) => r.error.message))];
    super(`${refused} record(s) refused, ${delivered} delivered: ${reasons.join('; ')}`, { cause: refusals[0]?.error });
    this.refusals = refusals;
    this.delivered = delivered;
  }

  /** The records refused, each once. */
  refusedRecords(): Set<ReadableLogRecord> {
    return new Set(this.refusals.flatMap((r) => r.records));
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
