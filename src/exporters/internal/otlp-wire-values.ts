/**
 * The rules every encoder (protobuf, JSON, the debug text) applies to a value, so the same record carries
 * the same content in every encoding (docs/exporters.md, "Values on the wire"):
 * - a number is an int_value when it is integral and inside int64, any other number a double_value;
 * - a time is nanoseconds since the epoch inside (0, 2^63); a time outside (before 1970, after
 *   2262-04-11, not a number) is written 0, "unknown" in OTLP, rather than wrapping around. The decoders
 *   never produce one (they fall back to the enqueued time); this guards records built by library users.
 * - strings are valid UTF-8: a lone UTF-16 surrogate becomes U+FFFD, as Buffer and TextEncoder write it.
 * - a span's or link's trace and span IDs are hex of the right length (32 and 16 digits), written lowercase
 *   (bytes on protobuf, hex on JSON); any other text is left out (OTLP's "invalid ID") rather than written
 *   as bytes protobuf and JSON would disagree on.
 */
import type { HrTime } from '@opentelemetry/api';

const INT64_MIN = -(2 ** 63);
const INT64_MAX_EXCLUSIVE = 2 ** 63;
const NANOS_PER_SECOND = 1_000_000_000;
/** 2^63 - 1 ns as seconds and nanoseconds: 2262-04-11T23:47:16.854775807Z. */
const MAX_SECONDS = 9_223_372_036;
const MAX_NANOS_AT_MAX_SECONDS = 854_775_807;

/** Whether a number is written as int_value (integral and inside int64) rather than double_value. */
export function isInt64(value: number): boolean {
  return Number.isInteger(value) && value >= INT64_MIN && value < INT64_MAX_EXCLUSIVE;
}

/**
 * An int64 number's exact decimal digits. String() prints the shortest digits that round-trip
 * (2^63 - 2^10 → "9223372036854775000", not …774784), which are not the value beyond 2^53; BigInt prints the value.
 */
export function int64String(value: number): string {
  return Number.isSafeInteger(value) ? String(value) : BigInt(value).toString();
}

/**
 * A time as whole seconds and nanoseconds (0 ≤ nanos < 1e9), both truncated as upstream's hrTimeToNanos
 * truncates them; [0, 0] when the time is not inside (0, 2^63) ns.
 */
export function wireTime(time: HrTime): [seconds: number, nanos: number] {
  let seconds = Math.trunc(time[0]);
  let nanos = Math.trunc(time[1]);
  if (nanos < 0 || nanos >= NANOS_PER_SECOND) {
    const carry = Math.floor(nanos / NANOS_PER_SECOND);
    seconds += carry;
    nanos -= carry * NANOS_PER_SECOND;
  }
  const inRange =
    seconds > 0
      ? seconds < MAX_SECONDS || (seconds === MAX_SECONDS && nanos <= MAX_NANOS_AT_MAX_SECONDS)
      : seconds === 0 && nanos > 0;
  return inRange ? [seconds, nanos] : [0, 0];
}

/** A time as OTLP/JSON writes a fixed64: decimal nanoseconds in a string ("0" when out of range). */
export function unixNanosString(time: HrTime): string {
  const [seconds, nanos] = wireTime(time);
  return seconds === 0 ? String(nanos) : `${seconds}${String(nanos).padStart(9, '0')}`;
}

/** Lowercase hex of `digits` hex digits: the ID as both encodings write it; '' when it is not one. */
export function wireId(hex: string, digits: 32 | 16): string {
  if (hex.length !== digits || !HEX.test(hex)) return '';
  return hex.toLowerCase();
}

const HEX = /^[0-9a-fA-F]*$/;

/** The string with each lone surrogate replaced by U+FFFD; the string itself when it is well formed. */
export function wellFormed(value: string): string {
  return value.isWellFormed() ? value : value.toWellFormed();
}

declare global {
  // ES2024 (Node 20): not in the ES2023 lib this project compiles against.
  interface String {
    isWellFormed(): boolean;
    toWellFormed(): string;
  }
}
