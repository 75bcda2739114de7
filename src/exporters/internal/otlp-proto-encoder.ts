/**
 * OTLP/protobuf encoding of a logs export request in one pass: the one place where this project replaces
 * a step of the OpenTelemetry JS libraries (`ProtobufLogsSerializer.serializeRequest` of
 * @opentelemetry/otlp-transformer 0.223.1, which walks every record twice, a size pass then a write pass,
 * scanning each string up to three times). The output is the same bytes as that serializer's, field
 * for field and in the same order (test/unit/exporters/otlp-proto-encoder.test.ts compares both, and
 * decodes them with the opentelemetry-proto schema), except for times outside (0, 2^63) ns, written 0
 * instead of wrapped around (internal/otlp-wire-values.ts).
 *
 * Field numbers are those of opentelemetry-proto v1 (collector/logs/v1/logs_service.proto,
 * logs/v1/logs.proto, common/v1/common.proto, resource/v1/resource.proto).
 */
import type { HrTime } from '@opentelemetry/api';
import type { AnyValue, LogAttributes } from '@opentelemetry/api-logs';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { ProtobufLogsSerializer, type ISerializer, type IExportLogsServiceResponse } from '@opentelemetry/otlp-transformer';
import { isInt64, wireTime } from './otlp-wire-values.ts';
import { ProtoWriter, varintSize } from './proto-writer.ts';

type Scope = ReadableLogRecord['instrumentationScope'];

// Tags: field number << 3 | wire type (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32).
const LEN_1 = 0x0a; // ExportLogsServiceRequest.resource_logs, ResourceLogs.resource, ScopeLogs.scope,
//                     KeyValue.key, AnyValue.string_value, ArrayValue.values, KeyValueList.values
const LEN_2 = 0x12; // ResourceLogs.scope_logs, ScopeLogs.log_records, KeyValue.value, InstrumentationScope.version
const LEN_3 = 0x1a; // *.schema_url, LogRecord.severity_text, InstrumentationScope.attributes
const RESOURCE_DROPPED = 0x10; // Resource.dropped_attributes_count
const SCOPE_DROPPED = 0x20; // InstrumentationScope.dropped_attributes_count
const LOG_TIME = 0x09;
const LOG_SEVERITY_NUMBER = 0x10;
const LOG_SEVERITY_TEXT = 0x1a;
const LOG_BODY = 0x2a;
const LOG_ATTRIBUTES = 6; // field number: attributes are written by writeAttributes(field)
const LOG_DROPPED = 0x38;
const LOG_FLAGS = 0x45;
const LOG_TRACE_ID = 0x4a;
const LOG_SPAN_ID = 0x52;
const LOG_OBSERVED_TIME = 0x59;
const LOG_EVENT_NAME = 0x62;
const ANY_BOOL = 0x10;
const ANY_INT = 0x18;
const ANY_DOUBLE = 0x21;
const ANY_ARRAY = 0x2a;
const ANY_KVLIST = 0x32;
const ANY_BYTES = 0x3a;

/** Content length assumed for a map or list value before it is written (a two-byte length prefix). */
const CONTAINER_GUESS_BYTES = 200;

/** Initial buffer size is capped here; past it the buffer doubles as it fills. 16 MiB. */
const MAX_INITIAL_BUFFER_BYTES = 16 * 1024 * 1024;

/**
 * Bytes per record, averaged over recent requests: sizes the next request's buffer and guesses the size of
 * its outer length prefixes (a wrong guess costs one move of the content, never a wrong encoding).
 */
let bytesPerRecord = 1024;

/** Encoded `resource` fields (tag, length, Resource), per Resource object once its attributes settled. */
const resourceCache = new WeakMap<Resource, Buffer>();
/** Encoded `scope` fields (tag, length, InstrumentationScope), per frozen scope object. */
const scopeCache = new WeakMap<Scope, Buffer>();

/** The ExportLogsServiceRequest for `records`, grouped by resource then scope object, as upstream groups them. */
export function encodeLogsRequest(records: readonly ReadableLogRecord[]): Buffer {
  const groups = new Map<Resource, Map<Scope, ReadableLogRecord[]>>();
  for (const record of records) {
    let scopes = groups.get(record.resource);
    if (scopes === undefined) groups.set(record.resource, (scopes = new Map()));
    const list = scopes.get(record.instrumentationScope);
    if (list === undefined) scopes.set(record.instrumentationScope, [record]);
    else list.push(record);
  }
  const estimate = records.length * bytesPerRecord;
  const w = new ProtoWriter(Math.min(MAX_INITIAL_BUFFER_BYTES, estimate + (estimate >>> 3) + 1024));
  for (const [resource, scopes] of groups) {
    let count = 0;
    for (const list of scopes.values()) count += list.length;
    const reserve = varintSize(count * bytesPerRecord);
    w.byte(LEN_1);
    const resourceLogs = w.begin(reserve);
    w.raw(resourceField(resource));
    for (const [scope, list] of scopes) {
      w.byte(LEN_2);
      const scopeLogs = w.begin(reserve);
      w.raw(scopeField(scope));
      for (const record of list) {
        w.byte(LEN_2);
        writeLogRecord(w, record);
      }
      if (scope.schemaUrl) {
        w.byte(LEN_3);
        w.string(scope.schemaUrl);
      }
      w.end(scopeLogs, reserve);
    }
    if (resource.schemaUrl) {
      w.byte(LEN_3);
      w.string(resource.schemaUrl);
    }
    w.end(resourceLogs, reserve);
  }
  if (records.length > 0) bytesPerRecord = Math.max(64, Math.ceil((bytesPerRecord * 3 + w.pos / records.length) / 4));
  return w.finish();
}

/**
 * `ProtobufLogsSerializer` with the request side replaced by `encodeLogsRequest`; the response side is
 * upstream's. What the otlphttp exporter hands to `createOtlpHttpExportDelegate`.
 */
export const OtlpProtoLogsSerializer: ISerializer<ReadableLogRecord[], IExportLogsServiceResponse> = {
  serializeRequest: (records) => encodeLogsRequest(records),
  deserializeResponse: (data) => ProtobufLogsSerializer.deserializeResponse(data),
};

function resourceField(resource: Resource): Buffer {
  const cached = resourceCache.get(resource);
  if (cached !== undefined) return cached;
  const w = new ProtoWriter(256);
  w.byte(LEN_1);
  const start = w.begin(2);
  // Reading `attributes` while async attributes are pending logs an error in @opentelemetry/resources,
  // as it does for upstream; such a resource is not cached, its attributes may still change.
  writeAttributes(w, resource.attributes, 1);
  w.byte(RESOURCE_DROPPED);
  w.byte(0);
  w.end(start, 2);
  const bytes = Buffer.from(w.finish());
  if (!resource.asyncAttributesPending) resourceCache.set(resource, bytes);
  return bytes;
}

function scopeField(scope: Scope): Buffer {
  const cached = scopeCache.get(scope);
  if (cached !== undefined) return cached;
  const w = new ProtoWriter(128);
  w.byte(LEN_1);
  const start = w.begin(1);
  w.byte(LEN_1);
  w.string(scope.name);
  if (scope.version) {
    w.byte(LEN_2);
    w.string(scope.version);
  }
  if (scope.attributes) writeAttributes(w, scope.attributes, 3);
  if (scope.droppedAttributesCount) {
    w.byte(SCOPE_DROPPED);
    w.int64(scope.droppedAttributesCount);
  }
  w.end(start, 1);
  const bytes = Buffer.from(w.finish());
  // A frozen scope cannot change under the cache; sdk-logs' own scopes are plain objects, encoded per batch.
  if (Object.isFrozen(scope) && (!scope.attributes || Object.isFrozen(scope.attributes))) scopeCache.set(scope, bytes);
  return bytes;
}

function writeLogRecord(w: ProtoWriter, record: ReadableLogRecord): void {
  // Most records are 128 B to 16 KiB: two length bytes, so the content rarely moves.
  const start = w.begin(2);
  w.byte(LOG_TIME);
  writeHrTime(w, record.hrTime);
  const severity = record.severityNumber;
  if (severity !== undefined && severity !== 0) {
    w.byte(LOG_SEVERITY_NUMBER);
    w.int64(severity);
  }
  if (record.severityText) {
    w.byte(LOG_SEVERITY_TEXT);
    w.string(record.severityText);
  }
  if (record.body !== undefined) {
    w.byte(LOG_BODY);
    writeAnyValueMessage(w, record.body);
  }
  if (record.attributes) writeAttributes(w, record.attributes, LOG_ATTRIBUTES);
  w.byte(LOG_DROPPED);
  w.int64(record.droppedAttributesCount ?? 0);
  const span = record.spanContext;
  if (span !== undefined) {
    if (span.traceFlags) {
      w.byte(LOG_FLAGS);
      w.fixed32(span.traceFlags);
    }
    if (span.traceId) writeHexBytes(w, LOG_TRACE_ID, span.traceId);
    if (span.spanId) writeHexBytes(w, LOG_SPAN_ID, span.spanId);
  }
  w.byte(LOG_OBSERVED_TIME);
  writeHrTime(w, record.hrTimeObserved);
  if (record.eventName) {
    w.byte(LOG_EVENT_NAME);
    w.string(record.eventName);
  }
  w.end(start, 2);
}

/** Seconds below which a whole-second time with nanoseconds in [0, 1e9) needs no check (2262-04-11). */
const PLAIN_MAX_SECONDS = 9_223_372_036;

/**
 * [seconds, nanoseconds] as fixed64 nanoseconds since the epoch, exact beyond 2^53: seconds are split at
 * bit 16 so that each product with 1e9 stays an exact double, and the halves are summed with carries.
 * A time outside (0, 2^63) ns is written 0 (otlp-wire-values.ts): upstream would wrap it (1601 → 2062).
 */
function writeHrTime(w: ProtoWriter, time: HrTime): void {
  let seconds = time[0];
  let nanos = time[1];
  const plain = seconds > 0 && seconds < PLAIN_MAX_SECONDS && Number.isInteger(seconds) && nanos >= 0 && nanos < 1e9
    && Number.isInteger(nanos);
  if (!plain) [seconds, nanos] = wireTime(time);
  const lowSecondsNanos = (seconds & 0xffff) * 1e9; // < 2^46
  const highSecondsNanos = ((seconds / 0x10000) >>> 0) * 1e9; // to be shifted left 16 bits; < 2^62
  const low = (lowSecondsNanos >>> 0) + (((highSecondsNanos & 0xffff) * 0x10000) >>> 0) + nanos;
  const high = Math.floor(lowSecondsNanos / 0x100000000) + ((highSecondsNanos / 0x10000) >>> 0) + Math.floor(low / 0x100000000);
  w.fixed64(low >>> 0, high >>> 0);
}

function writeHexBytes(w: ProtoWriter, tag: number, hex: string): void {
  const length = hex.length >>> 1;
  w.byte(tag);
  w.uint32(length);
  w.ensure(length);
  const buf = w.buf;
  for (let i = 0; i < length; i++) buf[w.pos++] = (hexDigit(hex.charCodeAt(2 * i)) << 4) | hexDigit(hex.charCodeAt(2 * i + 1));
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48; // 0-9
  if (c >= 97 && c <= 102) return c - 87; // a-f
  return c - 55; // A-F (anything else is not hex; its value is meaningless, as upstream's)
}

/** Each own enumerable attribute as a repeated KeyValue `field`, in enumeration order. */
function writeAttributes(w: ProtoWriter, attributes: LogAttributes, field: number): void {
  const tag = (field << 3) | 2;
  // Keys and values as two arrays (own enumerable properties, in for-in order): no keyed property loads,
  // which are slow on the many shapes of parsed JSON.
  const keys = Object.keys(attributes);
  const values = Object.values(attributes);
  for (let i = 0; i < keys.length; i++) {
    w.byte(tag);
    writeKeyValue(w, keys[i]!, values[i]);
  }
}

/** A KeyValue message with its length prefix (the tag is the caller's). */
function writeKeyValue(w: ProtoWriter, key: string, value: AnyValue): void {
  const reserve = varintSize(key.length + guessAnyValueBytes(value) + 4);
  const start = w.begin(reserve);
  w.byte(LEN_1);
  w.string(key);
  w.byte(LEN_2);
  writeAnyValueMessage(w, value);
  w.end(start, reserve);
}

/** An AnyValue message with its length prefix (the tag is the caller's). */
function writeAnyValueMessage(w: ProtoWriter, value: AnyValue): void {
  const reserve = varintSize(guessAnyValueBytes(value));
  const start = w.begin(reserve);
  writeAnyValue(w, value);
  w.end(start, reserve);
}

/** A lower estimate of an AnyValue's encoded size, enough to pick its length prefix's size. */
function guessAnyValueBytes(value: AnyValue): number {
  if (typeof value === 'string') return value.length + 3;
  if (typeof value !== 'object' || value === null) return 10;
  if (value instanceof Uint8Array) return value.length + 3;
  return CONTAINER_GUESS_BYTES;
}

/**
 * The AnyValue's content: the same choice of variant as upstream. Integral numbers within int64 are
 * int_value, other numbers double_value; null, undefined and other types an empty AnyValue.
 */
function writeAnyValue(w: ProtoWriter, value: AnyValue): void {
  switch (typeof value) {
    case 'string':
      w.byte(LEN_1);
      w.string(value);
      return;
    case 'boolean':
      w.byte(ANY_BOOL);
      w.byte(value ? 1 : 0);
      return;
    case 'number':
      if (isInt64(value)) {
        w.byte(ANY_INT);
        w.int64(value);
      } else {
        w.byte(ANY_DOUBLE);
        w.double(value);
      }
      return;
    case 'object':
      if (value === null) return;
      if (value instanceof Uint8Array) {
        w.byte(ANY_BYTES);
        w.bytes(value);
      } else if (Array.isArray(value)) {
        w.byte(ANY_ARRAY);
        const reserve = varintSize(CONTAINER_GUESS_BYTES);
        const start = w.begin(reserve);
        for (const item of value) {
          w.byte(LEN_1);
          writeAnyValueMessage(w, item);
        }
        w.end(start, reserve);
      } else {
        w.byte(ANY_KVLIST);
        const reserve = varintSize(CONTAINER_GUESS_BYTES);
        const start = w.begin(reserve);
        writeAttributes(w, value as LogAttributes, 1);
        w.end(start, reserve);
      }
      return;
    default:
      return;
  }
}
