import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { SignalConsumer } from '../../pipeline/consumer.ts';
import { concatEncodedLogs, type EncodedLogs, type SignalBatch } from '../../pipeline/signal-batch.ts';
import { EncodedLogsRefusedError } from '../../pipeline/encoded-logs-refusal.ts';
import { isRequestTooLarge } from '../../pipeline/partial-refusal.ts';

/** Tag of `ExportLogsServiceRequest.resource_logs` (field 1, length-delimited). */
const RESOURCE_LOGS_TAG = 0x0a;

/** What the encoded path needs of the exporter's serializer (measured-serializer.ts). */
export interface EncodedLogsSerializer {
  /** The request bytes for log records given as objects. */
  serializeRequest(items: readonly ReadableLogRecord[]): Uint8Array | undefined;
  /** Makes a stand-in array serialize to `bytes` on every attempt. */
  pin(items: readonly ReadableLogRecord[], bytes: Uint8Array): void;
}

export interface EncodedLogsOptions {
  /** Largest request, in bytes before compression; 0: no bound. */
  readonly maxBytes: number;
  /** Name in messages, e.g. `otlphttp/backend`. */
  readonly name: string;
}

/**
 * An OTLP logs sender that also takes log records encoded ahead (`SignalBatch.encodedLogs`, protobuf):
 * batches without them go to `recordsPath` as before; a batch with them is sent by `bytesPath` (the same
 * library exporter, with `retry_on_failure`, minus the record-splitting size bound) as the request bytes,
 * any log-record objects beside them encoded here and put first. Requests stay below `maxBytes` by cutting
 * between `resource_logs` entries (a concatenation of requests is a request). When that cannot be done (one
 * resource's records alone exceed the bound) or the server refuses a part for its size, the call rejects
 * with an `EncodedLogsRefusedError` and the receiver hands the batch over again as records, which the
 * records path splits one by one as without decode workers. The parts of a batch go one after the other;
 * any failure fails the batch, which the receiver sends again whole (at-least-once).
 */
export function withEncodedLogs(
  recordsPath: SignalConsumer,
  bytesPath: SignalConsumer,
  serializer: EncodedLogsSerializer,
  options: EncodedLogsOptions,
): SignalConsumer {
  async function consume(batch: SignalBatch, signal?: AbortSignal): Promise<void> {
    const encoded = batch.encodedLogs;
    if (!encoded) return recordsPath.consume(batch, signal);
    const parts: EncodedLogs[] = [];
    if (batch.records.length > 0) {
      const bytes = serializer.serializeRequest(batch.records) ?? new Uint8Array(0);
      parts.push({ bytes, records: batch.records.length });
    }
    parts.push(encoded);
    const whole = concatEncodedLogs(parts)!;
    for (const chunk of splitRequest(whole, options.maxBytes, options.name)) {
      // The library's exporter takes items; a stand-in array of the chunk's size carries the bytes.
      const carrier = new Array<ReadableLogRecord>(Math.max(1, chunk.records)).fill(STAND_IN);
      serializer.pin(carrier, chunk.bytes);
      try {
        await bytesPath.consume({ records: carrier, source: batch.source }, signal);
      } catch (error) {
        if (!isRequestTooLarge(error)) throw error;
        throw new EncodedLogsRefusedError(
          `${options.name}: the server refused encoded logs for their size; ` + 'sending them as records',
          { cause: error },
        );
      }
    }
  }

  return {
    consume,
    forceFlush: recordsPath.forceFlush ? () => recordsPath.forceFlush!() : undefined,
    shutdown: recordsPath.shutdown ? () => recordsPath.shutdown!() : undefined,
    attachProducer: recordsPath.attachProducer ? () => recordsPath.attachProducer!() : undefined,
    acceptsEncodedLogs: true,
  };
}

/** Never read: the serializer returns the pinned bytes for the array that holds it. */
const STAND_IN = Object.freeze({}) as ReadableLogRecord;

/**
 * `encoded` cut into requests of at most `maxBytes` (0: one request), between `resource_logs` entries; the
 * record count of each piece is apportioned by bytes (it only feeds the library's own item metrics).
 */
export function splitRequest(encoded: EncodedLogs, maxBytes: number, name: string): EncodedLogs[] {
  const { bytes } = encoded;
  if (maxBytes <= 0 || bytes.byteLength <= maxBytes) return [encoded];
  const pieces: EncodedLogs[] = [];
  const share = (length: number) => Math.max(1, Math.round((encoded.records * length) / bytes.byteLength));
  let start = 0;
  let pos = 0;
  while (pos < bytes.byteLength) {
    const entryEnd = entryEndAt(bytes, pos);
    if (entryEnd - pos > maxBytes) {
      throw new EncodedLogsRefusedError(
        `${name}: a resource's log records encoded ahead take ${entryEnd - pos} ` +
          `bytes, more than max_request_bytes (${maxBytes} bytes); sending them as records`,
      );
    }
    if (entryEnd - start > maxBytes) {
      pieces.push({ bytes: bytes.subarray(start, pos), records: share(pos - start) });
      start = pos;
    }
    pos = entryEnd;
  }
  pieces.push({ bytes: bytes.subarray(start, pos), records: share(pos - start) });
  return pieces;
}

/** End of the `resource_logs` entry that starts at `pos` (tag, varint length, content). */
function entryEndAt(bytes: Uint8Array, pos: number): number {
  if (bytes[pos] !== RESOURCE_LOGS_TAG) throw new Error(`encoded logs: unexpected field tag ${bytes[pos]} at ${pos}`);
  let length = 0;
  let shift = 1;
  let i = pos + 1;
  for (;;) {
    const b = bytes[i++];
    if (b === undefined) throw new Error('encoded logs: truncated length');
    length += (b & 0x7f) * shift;
    if (b < 0x80) break;
    shift *= 128;
  }
  const end = i + length;
  if (end > bytes.byteLength) throw new Error('encoded logs: truncated entry');
  return end;
}
