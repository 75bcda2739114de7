import type { DeadLetterEntry } from './dead-letter.ts';
import { redact } from '../component/redact.ts';

/*
 * The dead-letter line format, shared by the directory and blob stores: one JSON object per line.
 * {"at","source":{namespace,event_hub,consumer_group,partition_id},"error":{type,message},"signals"?,
 *  "event":{sequence_number,offset,enqueued_time,partition_key,message_id,content_type,properties,
 *           system_properties,body_base64,body_utf8?}}
 */

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A JSON-safe copy of an AMQP property value: bytes as `{ base64 }`, dates as ISO strings, big ints as strings. */
function jsonSafe(value: unknown, depth = 0): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array)
    return { base64: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  if (depth >= 8) return String(value);
  if (Array.isArray(value)) return value.map((v) => jsonSafe(v, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (typeof v !== 'function') out[k] = jsonSafe(v, depth + 1);
    return out;
  }
  return String(value);
}

/**
 * The JSON object written for one entry (one line of a dead-letter file). The body is always kept
 * byte-exact as base64, plus `body_utf8` when it is valid UTF-8, so it can be read and replayed.
 * The error message is redacted; only the four source fields are written.
 */
function deadLetterRecord(entry: DeadLetterEntry): Record<string, unknown> {
  const { event, source } = entry;
  const body = Buffer.from(event.body.buffer, event.body.byteOffset, event.body.byteLength);
  let bodyUtf8: string | undefined;
  try {
    bodyUtf8 = utf8.decode(event.body);
  } catch {
    bodyUtf8 = undefined;
  }
  return {
    at: entry.at.toISOString(),
    source: {
      namespace: source.namespace,
      event_hub: source.eventHubName,
      consumer_group: source.consumerGroup,
      partition_id: source.partitionId,
    },
    error: { type: entry.error.type, message: redact(entry.error.message) },
    ...(entry.signals?.length ? { signals: [...entry.signals] } : {}),
    event: {
      sequence_number: event.sequenceNumber,
      offset: event.offset,
      enqueued_time: jsonSafe(event.enqueuedTime),
      partition_key: event.partitionKey ?? null,
      message_id: jsonSafe(event.messageId),
      content_type: event.contentType ?? null,
      properties: jsonSafe(event.properties ?? {}),
      system_properties: jsonSafe(event.systemProperties ?? {}),
      body_base64: body.toString('base64'),
      ...(bodyUtf8 === undefined ? {} : { body_utf8: bodyUtf8 }),
    },
  };
}

/** One JSON line per entry, each ending in `\n`. */
function deadLetterLine(entry: DeadLetterEntry): string {
  return `${JSON.stringify(deadLetterRecord(entry))}\n`;
}

/** Decodes one dead-letter line back into its event's body bytes and metadata (for replay tools and tests). */
export function parseDeadLetterLine(line: string): { record: Record<string, any>; body: Uint8Array } {
  const record = JSON.parse(line) as Record<string, any>;
  return { record, body: new Uint8Array(Buffer.from(String(record.event?.body_base64 ?? ''), 'base64')) };
}

/** The relative path of the file (or blob) an entry goes to: one per partition and UTC day. */
export function deadLetterPath(entry: DeadLetterEntry): string {
  const s = entry.source;
  const day = entry.at.toISOString().slice(0, 10);
  return [
    safeSegment(s.namespace),
    safeSegment(s.eventHubName),
    safeSegment(s.consumerGroup),
    'deadletter',
    safeSegment(s.partitionId),
    `${day}.jsonl`,
  ]
    .join('/')
    .toLowerCase();
}

/** A path segment that cannot climb out of the root or nest: unusual characters become `_`. */
function safeSegment(text: string): string {
  const cleaned = text.replace(/[^A-Za-z0-9._$-]/g, '_');
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? `_${cleaned}` : cleaned;
}

/** Groups entries by destination path, keeping their order within each group. */
export function groupByPath(entries: readonly DeadLetterEntry[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const entry of entries) {
    const path = deadLetterPath(entry);
    let lines = groups.get(path);
    if (!lines) groups.set(path, (lines = []));
    lines.push(deadLetterLine(entry));
  }
  return groups;
}
