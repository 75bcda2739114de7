import type { ISerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';

/** A request serializer that can also tell a request's size, without serializing it twice. */
export interface MeasuredSerializer<Response, Item = ReadableLogRecord> extends ISerializer<readonly Item[], Response> {
  /** Bytes of the serialized request for `items` (before compression). */
  measure(items: readonly Item[]): number;
  /**
   * Makes `items` (a stand-in array) serialize to `bytes`, for as long as the array lives and on every
   * attempt: how bytes encoded ahead (`SignalBatch.encodedLogs`) go through the library's exporter.
   */
  pin(items: readonly Item[], bytes: Uint8Array): void;
}

/**
 * Wraps the exporter's serializer so the request-size bound (src/pipeline/request-bytes-limit.ts) measures
 * with the very bytes that are then sent: `measure` serializes and keeps the bytes, keyed by the items
 * array (log records, metric points or spans), and the exporter's `serializeRequest` for that same array
 * takes them instead of encoding again. The kept bytes are handed over once (a retry encodes anew) and die
 * with the array, so at most one encoded copy per batch in flight exists, as without the bound.
 */
export function measuredSerializer<Response, Item = ReadableLogRecord>(
  inner: ISerializer<readonly Item[], Response>,
): MeasuredSerializer<Response, Item> {
  const kept = new WeakMap<readonly Item[], Uint8Array>();
  const pinned = new WeakMap<readonly Item[], Uint8Array>();
  return {
    pin(items, bytes) {
      pinned.set(items, bytes);
    },
    measure(items) {
      const known = pinned.get(items) ?? kept.get(items);
      if (known) return known.byteLength;
      const bytes = inner.serializeRequest(items);
      if (!bytes) return 0;
      kept.set(items, bytes);
      return bytes.byteLength;
    },
    serializeRequest(items) {
      const fixed = pinned.get(items);
      if (fixed) return fixed;
      const known = kept.get(items);
      if (!known) return inner.serializeRequest(items);
      kept.delete(items);
      return known;
    },
    deserializeResponse: (data) => inner.deserializeResponse(data),
  };
}
