/**
 * The protobuf writing shared by the one-pass OTLP encoders (logs: otlp-proto-encoder.ts, metrics:
 * otlp-proto-metrics-encoder.ts, traces: otlp-proto-trace-encoder.ts): resource and scope fields (encoded
 * once per object and cached), attributes and AnyValues, times and hex identifiers. Field numbers are those
 * of opentelemetry-proto v1 (common/v1/common.proto, resource/v1/resource.proto); values follow
 * otlp-wire-values.ts, so every signal carries numbers, times and strings by the same rules.
 */
import type { HrTime } from '@opentelemetry/api';
import type { AnyValue, LogAttributes } from '@opentelemetry/api-logs';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { DOUBLES, doublesIn } from '../../pipeline/double-values.ts';
import { isInt64, wireTime } from './otlp-wire-values.ts';
import { ProtoWriter, varintSize } from './proto-writer.ts';

/** A log record's scope; a metric point's or span's (`InstrumentationScope`) is one without attributes. */
export type Scope = ReadableLogRecord['instrumentationScope'];

// Tags: field number << 3 | wire type (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32).
const LEN_1 = 0x0a; // Resource.attributes, InstrumentationScope.name, KeyValue.key, AnyValue.string_value, ...
const LEN_2 = 0x12; // KeyValue.value, InstrumentationScope.version
const RESOURCE_DROPPED = 0x10; // Resource.dropped_attributes_count
const SCOPE_DROPPED = 0x20; // InstrumentationScope.dropped_attributes_count
const ANY_BOOL = 0x10;
const ANY_INT = 0x18;
const ANY_DOUBLE = 0x21;
const ANY_ARRAY = 0x2a;
const ANY_KVLIST = 0x32;
const ANY_BYTES = 0x3a;

/** Content length assumed for a map or list value before it is written (a two-byte length prefix). */
const CONTAINER_GUESS_BYTES = 200;

/** Encoded `resource` fields (tag, length, Resource), per Resource object once its attributes settled. */
const resourceCache = new WeakMap<Resource, Buffer>();
/** Encoded `scope` fields (tag, length, InstrumentationScope), per frozen scope object. */
const scopeCache = new WeakMap<Scope, Buffer>();

/** The `resource` field (number 1 in ResourceLogs, ResourceMetrics and ResourceSpans), tag included. */
export function resourceField(resource: Resource): Buffer {
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

/** The `scope` field (number 1 in ScopeLogs, ScopeMetrics and ScopeSpans), tag included. */
export function scopeField(scope: Scope): Buffer {
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

/** Seconds below which a whole-second time with nanoseconds in [0, 1e9) needs no check (2262-04-11). */
const PLAIN_MAX_SECONDS = 9_223_372_036;

/**
 * [seconds, nanoseconds] as fixed64 nanoseconds since the epoch, exact beyond 2^53: seconds are split at
 * bit 16 so that each product with 1e9 stays an exact double, and the halves are summed with carries.
 * A time outside (0, 2^63) ns is written 0 (otlp-wire-values.ts): upstream would wrap it (1601 → 2062).
 */
export function writeHrTime(w: ProtoWriter, time: HrTime): void {
  let seconds = time[0];
  let nanos = time[1];
  const plain =
    seconds > 0 &&
    seconds < PLAIN_MAX_SECONDS &&
    Number.isInteger(seconds) &&
    nanos >= 0 &&
    nanos < 1e9 &&
    Number.isInteger(nanos);
  if (!plain) [seconds, nanos] = wireTime(time);
  const lowSecondsNanos = (seconds & 0xffff) * 1e9; // < 2^46
  const highSecondsNanos = ((seconds / 0x10000) >>> 0) * 1e9; // to be shifted left 16 bits; < 2^62
  const low = (lowSecondsNanos >>> 0) + (((highSecondsNanos & 0xffff) * 0x10000) >>> 0) + nanos;
  const high =
    Math.floor(lowSecondsNanos / 0x100000000) + ((highSecondsNanos / 0x10000) >>> 0) + Math.floor(low / 0x100000000);
  w.fixed64(low >>> 0, high >>> 0);
}

/**
 * A hex identifier as a bytes field. Callers check `wireId` first when the hex is not known to be valid
 * (span and trace IDs of spans); log records' IDs are written as upstream writes them.
 */
export function writeHexBytes(w: ProtoWriter, tag: number, hex: string): void {
  const length = hex.length >>> 1;
  w.byte(tag);
  w.uint32(length);
  w.ensure(length);
  const buf = w.buf;
  for (let i = 0; i < length; i++)
    buf[w.pos++] = (hexDigit(hex.charCodeAt(2 * i)) << 4) | hexDigit(hex.charCodeAt(2 * i + 1));
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48; // 0-9
  if (c >= 97 && c <= 102) return c - 87; // a-f
  return c - 55; // A-F (anything else is not hex; its value is meaningless, as upstream's)
}

/**
 * Each own enumerable attribute as a repeated KeyValue `field`, in enumeration order. `doubles`: every number
 * inside is a double_value (a map inside one marked so, see pipeline/double-values.ts).
 */
export function writeAttributes(
  w: ProtoWriter,
  attributes: LogAttributes,
  field: number,
  doubles = false,
  markedKeys?: Set<string>,
): void {
  const tag = (field << 3) | 2;
  // Keys and values as two arrays (own enumerable properties, in for-in order): no keyed property loads,
  // which are slow on the many shapes of parsed JSON.
  const keys = Object.keys(attributes);
  const values = Object.values(attributes);
  const mark = doubles ? true : (markedKeys ?? (attributes as { [DOUBLES]?: true | Set<string> })[DOUBLES]);
  for (let i = 0; i < keys.length; i++) {
    w.byte(tag);
    const key = keys[i]!;
    writeKeyValue(w, key, values[i], mark === true || (mark !== undefined && mark.has(key)));
  }
}

/**
 * Longest key plus string value written by writeShortStringKeyValue: the KeyValue (key 2 + k bytes, value
 * 2 + AnyValue 2 + v bytes) then fits a one-byte length, as do the nested lengths.
 */
const SHORT_KEY_VALUE_CHARS = 120;

/** A KeyValue message with its length prefix (the tag is the caller's). */
function writeKeyValue(w: ProtoWriter, key: string, value: AnyValue, doubles: boolean): void {
  if (typeof value === 'string' && key.length + value.length <= SHORT_KEY_VALUE_CHARS) {
    if (writeShortStringKeyValue(w, key, value)) return;
  }
  const reserve = varintSize(key.length + guessAnyValueBytes(value) + 4);
  const start = w.begin(reserve);
  w.byte(LEN_1);
  w.string(key);
  w.byte(LEN_2);
  writeAnyValueMessage(w, value, doubles);
  w.end(start, reserve);
}

/**
 * The commonest attribute, a short string under a short key, when both are ASCII: every length is known before
 * the bytes are written (one byte each), so no length is reserved, guessed or moved. False, with nothing
 * written, when a character is not ASCII (the general path then writes it).
 */
function writeShortStringKeyValue(w: ProtoWriter, key: string, value: string): boolean {
  const k = key.length;
  const v = value.length;
  w.ensure(k + v + 7);
  const buf = w.buf;
  const start = w.pos;
  buf[start] = k + v + 6;
  buf[start + 1] = LEN_1;
  buf[start + 2] = k;
  let p = w.asciiAt(key, start + 3);
  if (p < 0) return false;
  buf[p++] = LEN_2;
  buf[p++] = v + 2;
  buf[p++] = LEN_1;
  buf[p++] = v;
  p = w.asciiAt(value, p);
  if (p < 0) return false;
  w.pos = p;
  return true;
}

/**
 * An AnyValue message with its length prefix (the tag is the caller's); `doubles` and, for a map, `markedKeys`
 * as for writeAttributes.
 */
export function writeAnyValueMessage(w: ProtoWriter, value: AnyValue, doubles = false, markedKeys?: Set<string>): void {
  const reserve = varintSize(guessAnyValueBytes(value));
  const start = w.begin(reserve);
  writeAnyValue(w, value, doubles, markedKeys);
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
 * int_value, other numbers (and every number where `doubles`) double_value; null, undefined and other types an
 * empty AnyValue.
 */
function writeAnyValue(w: ProtoWriter, value: AnyValue, doubles: boolean, markedKeys?: Set<string>): void {
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
      if (!doubles && isInt64(value)) {
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
        const inner = doublesIn(value, doubles);
        for (const item of value) {
          w.byte(LEN_1);
          writeAnyValueMessage(w, item, inner);
        }
        w.end(start, reserve);
      } else {
        w.byte(ANY_KVLIST);
        const reserve = varintSize(CONTAINER_GUESS_BYTES);
        const start = w.begin(reserve);
        writeAttributes(w, value as LogAttributes, 1, doubles, markedKeys);
        w.end(start, reserve);
      }
      return;
    default:
      return;
  }
}
