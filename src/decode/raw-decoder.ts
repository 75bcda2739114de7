import type { AnyValue, LogAttributes } from '@opentelemetry/api-logs';
import type { Resource } from '@opentelemetry/resources';
import type { ReceivedEvent } from '../backends/consumer.ts';
import { enqueuedMsOf, RecordAttributes } from './internal/event-attributes.ts';
import { eventText } from './internal/parse-json.ts';
import { bytesOf, makeRecord, type BatchState } from './internal/records.ts';
import { hrTimeFromMs } from './internal/timestamp.ts';

/** Application property values nested deeper than this are written as their string form. */
const MAX_PROPERTY_DEPTH = 16;

/**
 * The `raw` format: one record per event. The body is the text when the bytes are valid UTF-8 (a leading
 * byte-order mark dropped), else the bytes themselves; the timestamp is the enqueued time; the AMQP
 * application properties become attributes (the event metadata, added later, never replaces one).
 */
export function decodeRawEvent(event: ReceivedEvent, state: BatchState, resource: Resource): void {
  const enqueuedMs = enqueuedMsOf(event, state.observedMs);
  const text = eventText(event.body);
  const attributes: LogAttributes = new RecordAttributes();
  if (event.properties && typeof event.properties === 'object') {
    for (const key of Object.keys(event.properties)) {
      setOwn(attributes, key, toAnyValue(event.properties[key], MAX_PROPERTY_DEPTH));
    }
  }
  state.records.push(
    makeRecord(hrTimeFromMs(enqueuedMs), state.observed, text ?? bytesOf(event), attributes, resource),
  );
}

/** Defines an own property even for `__proto__`, which plain assignment would treat as the prototype. */
function setOwn(target: LogAttributes, key: string, value: AnyValue): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** AMQP application property values (rhea decodes them to JS values) as OpenTelemetry AnyValue. */
function toAnyValue(value: unknown, depth: number): AnyValue {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return value;
    case 'bigint':
      return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
    case 'undefined':
      return null;
    case 'object': {
      if (value === null) return null;
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
      if (value instanceof Uint8Array) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
      if (depth <= 0) return String(value);
      if (Array.isArray(value)) return value.map((v) => toAnyValue(v, depth - 1));
      const out: Record<string, AnyValue> = {};
      for (const key of Object.keys(value))
        setOwn(out, key, toAnyValue((value as Record<string, unknown>)[key], depth - 1));
      return out;
    }
    default:
      return String(value);
  }
}
