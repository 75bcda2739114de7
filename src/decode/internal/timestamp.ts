import type { HrTime } from '@opentelemetry/api';

/**
 * Built-in timestamp parsing, written with char codes rather than regexes because it runs once per
 * record. Returns `[seconds, nanoseconds]` since the epoch, or undefined when the value is not a
 * timestamp we recognise. Times without a zone are UTC: Azure Monitor writes every resource-log time in
 * UTC (https://learn.microsoft.com/azure/azure-monitor/essentials/resource-logs-schema).
 */
export function parseBuiltinTimestamp(value: unknown): HrTime | undefined {
  if (typeof value === 'string') return parseTimestampString(value);
  if (typeof value === 'number') return fromEpochNumber(value);
  return undefined;
}

const NANOS_PER_SECOND = 1_000_000_000;
/**
 * The last second whose nanoseconds since the epoch fit in int64: 2262-04-11T23:47:16Z. OTLP carries
 * times as 64-bit nanoseconds, and Go's time.UnixNano (the collector's pdata) is int64.
 */
const MAX_UNIX_SECONDS = 9_223_372_036;
const MAX_NANOS_AT_MAX_SECONDS = 854_775_807;

/**
 * Whether a time is representable on the OTLP wire: after the epoch and no later than 2^63 - 1 ns
 * (2262-04-11). A time outside is not a timestamp we can export: 1601-01-01 (Windows' zero FILETIME)
 * would wrap to 2062 as an unsigned fixed64 and be refused in OTLP/JSON. Parsers return undefined
 * for it, so the record falls back to the enqueued time and keeps the original text, as for any
 * unparsable timestamp. 1970-01-01T00:00:00Z itself is 0, which OTLP reads as "unknown": refused too.
 */
export function isRepresentableTime(time: HrTime): boolean {
  const [seconds, nanos] = time;
  if (seconds > 0)
    return seconds < MAX_UNIX_SECONDS || (seconds === MAX_UNIX_SECONDS && nanos <= MAX_NANOS_AT_MAX_SECONDS);
  return seconds === 0 && nanos > 0;
}

function representable(time: HrTime | undefined): HrTime | undefined {
  return time !== undefined && isRepresentableTime(time) ? time : undefined;
}
/** Below this an epoch number is seconds (up to year 5138), then ms, µs, and ns. */
const EPOCH_SECONDS_LIMIT = 1e11;
const EPOCH_MS_LIMIT = 1e14;
const EPOCH_US_LIMIT = 1e17;

/** Converts ms since the epoch (may be fractional) to an HrTime. */
export function hrTimeFromMs(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

/** An epoch number of seconds, milliseconds, microseconds or nanoseconds, told apart by magnitude. */
export function fromEpochNumber(n: number): HrTime | undefined {
  if (!Number.isFinite(n) || n <= 0) return undefined;
  let seconds: number;
  let nanos: number;
  if (n < EPOCH_SECONDS_LIMIT) {
    seconds = Math.floor(n);
    nanos = Math.round((n - seconds) * NANOS_PER_SECOND);
  } else if (n < EPOCH_MS_LIMIT) {
    seconds = Math.floor(n / 1000);
    nanos = Math.round((n - seconds * 1000) * 1e6);
  } else if (n < EPOCH_US_LIMIT) {
    seconds = Math.floor(n / 1e6);
    nanos = Math.round((n - seconds * 1e6) * 1000);
  } else {
    seconds = Math.floor(n / 1e9);
    nanos = Math.round(n - seconds * 1e9);
  }
  if (nanos >= NANOS_PER_SECOND) {
    seconds += 1;
    nanos -= NANOS_PER_SECOND;
  }
  return representable([seconds, nanos]);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Reads `count` digits at `at`; -1 when any is not a digit or the string is too short. */
function digits(s: string, at: number, count: number): number {
  if (at + count > s.length) return -1;
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) return -1;
    n = n * 10 + (c - 48);
  }
  return n;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function validDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const max = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 31);
  return day <= max;
}

/**
 * Builds an HrTime from UTC calendar fields and a zone offset in minutes east of UTC; undefined for an
 * invalid date or one outside the representable range (isRepresentableTime).
 */
export function composeHrTime(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  nanos: number,
  offsetMinutes: number,
): HrTime | undefined {
  if (!validDate(year, month, day) || hour > 24 || minute > 59 || second > 60 || nanos >= NANOS_PER_SECOND)
    return undefined;
  let ms: number;
  if (year >= 100) ms = Date.UTC(year, month - 1, day, hour, minute, second);
  else {
    const date = new Date(0);
    date.setUTCFullYear(year, month - 1, day); // Date.UTC would read years 0–99 as 1900–1999
    date.setUTCHours(hour, minute, second, 0);
    ms = date.getTime();
  }
  ms -= offsetMinutes * 60_000;
  if (Number.isNaN(ms)) return undefined;
  return representable([ms / 1000, nanos]);
}

/** Reads a fraction of a second starting after the separator; returns [nanos, next index]. */
function readFraction(s: string, at: number): [number, number] {
  let i = at;
  let nanos = 0;
  let scale = 100_000_000;
  while (i < s.length && isDigit(s.charCodeAt(i))) {
    nanos += (s.charCodeAt(i) - 48) * scale; // digits past the ninth (scale < 1) add nothing after the floor
    scale /= 10;
    i++;
  }
  return [Math.floor(nanos), i];
}

/** Reads a zone at `at`: Z, ±hh, ±hhmm, ±hh:mm, or " UTC"/" GMT". Returns [offset minutes, next] or undefined. */
function readZone(s: string, at: number): [number, number] | undefined {
  let i = at;
  if (i < s.length && s.charCodeAt(i) === 32) i++;
  if (i >= s.length) return [0, i];
  const c = s.charCodeAt(i);
  if (c === 90 || c === 122) return [0, i + 1]; // Z z
  if (c === 43 || c === 45) {
    const sign = c === 45 ? -1 : 1;
    const hh = digits(s, i + 1, 2);
    if (hh < 0) return undefined;
    let j = i + 3;
    let mm = 0;
    if (j < s.length && s.charCodeAt(j) === 58) j++;
    if (j < s.length) {
      mm = digits(s, j, 2);
      if (mm < 0) return undefined;
      j += 2;
    }
    return [sign * (hh * 60 + mm), j];
  }
  const word = s.slice(i, i + 3);
  if (word === 'UTC' || word === 'GMT') return [0, i + 3];
  return undefined;
}

/** Reads `hh:mm[:ss[.fff]]` at `at`; hours may have one digit. Returns fields and the next index. */
function readClock(
  s: string,
  at: number,
): { h: number; m: number; sec: number; nanos: number; next: number } | undefined {
  let i = at;
  let h = digits(s, i, 2);
  if (h >= 0 && s.charCodeAt(i + 2) === 58) i += 3;
  else {
    h = digits(s, i, 1);
    if (h < 0 || s.charCodeAt(i + 1) !== 58) return undefined;
    i += 2;
  }
  const m = digits(s, i, 2);
  if (m < 0) return undefined;
  i += 2;
  let sec = 0;
  let nanos = 0;
  if (s.charCodeAt(i) === 58) {
    sec = digits(s, i + 1, 2);
    if (sec < 0) return undefined;
    i += 3;
    const f = s.charCodeAt(i);
    if (f === 46 || f === 44) [nanos, i] = readFraction(s, i + 1);
  }
  return { h, m, sec, nanos, next: i };
}

/** ISO 8601 / RFC 3339: `YYYY-MM-DD[(T| )hh:mm[:ss[.f…]]][zone]`. */
function parseIso(s: string): HrTime | undefined {
  const year = digits(s, 0, 4);
  if (year < 0 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return undefined;
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  if (month < 0 || day < 0) return undefined;
  if (s.length === 10) return composeHrTime(year, month, day, 0, 0, 0, 0, 0);
  const sep = s.charCodeAt(10);
  if (sep !== 84 && sep !== 116 && sep !== 32) return undefined; // T t space
  const clock = readClock(s, 11);
  if (!clock) return undefined;
  const zone = readZone(s, clock.next);
  if (!zone || zone[1] !== s.length) return undefined;
  return composeHrTime(year, month, day, clock.h, clock.m, clock.sec, clock.nanos, zone[0]);
}

/** US style, as some Azure services write it: `M/D/YYYY[ h:mm[:ss[.f…]][ AM|PM]][zone]`. */
function parseUs(s: string): HrTime | undefined {
  let i = 0;
  const readNum = (max: number): number => {
    let n = 0;
    const start = i;
    while (i < s.length && i - start < max && isDigit(s.charCodeAt(i))) n = n * 10 + (s.charCodeAt(i++) - 48);
    return i === start ? -1 : n;
  };
  const month = readNum(2);
  if (month < 0 || s.charCodeAt(i++) !== 47) return undefined;
  const day = readNum(2);
  if (day < 0 || s.charCodeAt(i++) !== 47) return undefined;
  const yearStart = i;
  const year = readNum(4);
  if (year < 0 || i - yearStart !== 4) return undefined;
  if (i === s.length) return composeHrTime(year, month, day, 0, 0, 0, 0, 0);
  if (s.charCodeAt(i) !== 32 && s.charCodeAt(i) !== 84) return undefined;
  const clock = readClock(s, i + 1);
  if (!clock) return undefined;
  i = clock.next;
  let hour = clock.h;
  if (s.charCodeAt(i) === 32) {
    const meridiem = s.slice(i + 1, i + 3).toUpperCase();
    if (meridiem === 'AM' || meridiem === 'PM') {
      if (hour < 1 || hour > 12) return undefined;
      hour = (hour % 12) + (meridiem === 'PM' ? 12 : 0);
      i += 3;
    }
  }
  const zone = readZone(s, i);
  if (!zone || zone[1] !== s.length) return undefined;
  return composeHrTime(year, month, day, hour, clock.m, clock.sec, clock.nanos, zone[0]);
}

/** A string of digits (optionally with a fraction) is an epoch number. */
function parseEpochString(s: string): HrTime | undefined {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c) && c !== 46) return undefined;
  }
  return fromEpochNumber(Number(s));
}

const MIN_FREE_FORM_LENGTH = 12;

/** Tries ISO 8601, US style, epoch digits, then RFC 1123-like strings via Date.parse. */
export function parseTimestampString(raw: string): HrTime | undefined {
  const s = raw.length > 0 && (raw.charCodeAt(0) === 32 || raw.charCodeAt(raw.length - 1) === 32) ? raw.trim() : raw;
  if (s.length < 4) return undefined;
  const c0 = s.charCodeAt(0);
  if (isDigit(c0)) {
    if (s.charCodeAt(4) === 45) return parseIso(s);
    const us = s.indexOf('/');
    if (us > 0 && us <= 2) return parseUs(s);
    return parseEpochString(s);
  }
  // Free-form dates such as "Tue, 15 Nov 2024 08:12:31 GMT". Date.parse accepts almost anything, so only
  // strings long enough to hold a date and a clock are tried.
  if (s.length >= MIN_FREE_FORM_LENGTH && s.includes(':')) {
    const ms = Date.parse(s);
    if (!Number.isNaN(ms)) return representable(hrTimeFromMs(ms));
  }
  return undefined;
}
