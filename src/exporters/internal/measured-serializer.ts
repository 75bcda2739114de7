import type { ISerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';

/** A request serializer that can also tell a request's size, without serializing it twice. */
export interface MeasuredSerializer<Response> extends ISerializer<ReadableLogRecord[], Response> {
  /** Bytes of the serialized request for `records` (before compression). */
  measure(records: readonly ReadableLogRecord[]): number;
}

/**
 * Wraps the exporter's serializer so the request-size bound (src/pipeline/request-bytes-limit.ts) measures
 * with the very bytes that are then sent: `measure` serializes and keeps the bytes, keyed by the records
 * array, and the exporter's `serializeRequest` for that same array takes them instead of encoding again.
 * The kept bytes are handed over once (a retry encodes anew) and die with the array, so at most one
 * encoded copy per batch in flight exists, as without the bound.
 */
export function measuredSerializer<Response>(inner: ISerializer<ReadableLogRecord[], Response>): MeasuredSerializer<Response> {
  const kept = new WeakMap<readonly ReadableLogRecord[], Uint8Array>();
  return {
    measure(records) {
      const known = kept.get(records);
      if (known) return known.byteLength;
      const bytes = inner.serializeRequest(records as ReadableLogRecord[]);
      if (!bytes) return 0;
      kept.set(records, bytes);
      return bytes.byteLength;
    },
    serializeRequest(records) {
      const known = kept.get(records);
      if (!known) return inner.serializeRequest(records);
      kept.delete(records);
      return known;
    },
    deserializeResponse: (data) => inner.deserializeResponse(data),
  };
}
