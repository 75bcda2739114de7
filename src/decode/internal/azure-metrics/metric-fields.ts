import type { HrTime } from '@opentelemetry/api';
import type { TimeLayoutParser } from '../time-layout.ts';
import { isRepresentableTime, parseBuiltinTimestamp } from '../timestamp.ts';

/**
 * Thrown while decoding a metric record that cannot become metric points. Caught by the route, which
 * then leaves the record a log record flagged with `error.type` = ERROR_INVALID_METRIC and this message.
 */
export class InvalidMetricRecord extends Error {
  override readonly name = 'InvalidMetricRecord';
}

/** `error.type` of a record that looks like a metric but could not be decoded as one (it stays a log record). */
export const ERROR_INVALID_METRIC = 'invalid_metric_record';

const NANOS_PER_SECOND = 1_000_000_000;

/**
 * A field by name, matched the way Go's encoding/json matches struct tags (exact name first, then any
 * case), since the Go receiver decodes records into tagged structs. Undefined when absent or null: Go
 * leaves a field at its zero value for a JSON null.
 */
export function field(record: Readonly<Record<string, unknown>>, name: string): unknown {
  const exact = record[name];
  if (exact !== undefined) return exact ?? undefined;
  const lower = name.toLowerCase();
  for (const key in record) {
    if (key.length === name.length && key.toLowerCase() === lower) return record[key] ?? undefined;
  }
  return undefined;
}

/**
 * An aggregation value as a double, or undefined when absent. A JSON number is taken as is; an integer
 * string is what the lossless JSON parse leaves for integers past 2^53 (Go reads those as the nearest
 * float64, and so do we). Anything else is not a number Azure would write.
 */
export function aggregate(record: Readonly<Record<string, unknown>>, name: string): number | undefined {
  const value = field(record, name);
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  throw new InvalidMetricRecord(`${name} is not a number`);
}

/** A string field that must be there and not empty (the metric's name). */
export function requiredString(record: Readonly<Record<string, unknown>>, name: string): string {
  const value = field(record, name);
  if (typeof value !== 'string' || value === '') {
    throw new InvalidMetricRecord(value === undefined ? `${name} is missing` : `${name} is not a non-empty string`);
  }
  return value;
}

/** Aggregation suffixes, in the order Go appends the gauges; BARE_NAME indexes the bare name. */
export const AGGREGATION_SUFFIXES = ['total', 'count', 'minimum', 'maximum', 'average'] as const;
export const BARE_NAME = AGGREGATION_SUFFIXES.length;

/** Distinct metric names kept per decoder; past this the cache starts over. */
const MAX_CACHED_NAMES = 10_000;

/**
 * The Go receiver's metric names: spaces become underscores, then all lower case, then `_<aggregation>`
 * (`Percentage CPU` → `percentage_cpu_average`; with `metric_aggregation: average`, the bare
 * `percentage_cpu`). Computed once per distinct name: a resource sends the same few hundred metric names
 * every minute, and building five strings per record cost more than the rest of its decoding.
 */
export class MetricNames {
  readonly #byName = new Map<string, readonly string[]>();

  /** The names for `name`: index i is AGGREGATION_SUFFIXES[i]'s gauge, BARE_NAME the bare one. */
  get(name: string): readonly string[] {
    let names = this.#byName.get(name);
    if (names === undefined) {
      if (this.#byName.size >= MAX_CACHED_NAMES) this.#byName.clear();
      const base = name.replaceAll(' ', '_');
      names = [...AGGREGATION_SUFFIXES.map((suffix) => `${base}_${suffix}`.toLowerCase()), base.toLowerCase()];
      this.#byName.set(name, names);
    }
    return names;
  }
}

/**
 * The record's `time`: the user's `time_formats.metrics` layouts first, then the built-in parsing that
 * log records use (ISO 8601 first). Go tries the layouts, then ISO 8601 only.
 */
export function recordTime(record: Readonly<Record<string, unknown>>, parsers: readonly TimeLayoutParser[]): HrTime {
  const value = field(record, 'time');
  if (value === undefined) throw new InvalidMetricRecord('time is missing');
  if (typeof value === 'string') {
    for (const parse of parsers) {
      const time = parse(value);
      if (time !== undefined) return time;
    }
  }
  const time = parseBuiltinTimestamp(value);
  if (time === undefined) throw new InvalidMetricRecord(`time ${JSON.stringify(value)} is not a timestamp`);
  return time;
}

const DURATION = /^P(?:(\d+)W|(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:[.,]\d+)?)S)?)?)$/;
const MAX_CACHED_GRAINS = 1_000;
/** Time grains seen, parsed: Azure uses a handful (PT1M above all), so the regex runs once for each. */
const grains = new Map<string, number | undefined>();

/**
 * An ISO 8601 duration in nanoseconds (`PT1M`, `PT5M`, `PT1H`, `P1D`, `P1W`), as Azure writes
 * `timeGrain`; undefined for anything else, zero, or years and months (whose length varies).
 */
export function parseDurationNanos(text: string): number | undefined {
  if (grains.has(text)) return grains.get(text);
  const nanos = parseDuration(text);
  if (grains.size >= MAX_CACHED_GRAINS) grains.clear();
  grains.set(text, nanos);
  return nanos;
}

function parseDuration(text: string): number | undefined {
  const m = DURATION.exec(text);
  if (m === null || text.endsWith('T')) return undefined;
  const [, weeks, days, hours, minutes, seconds] = m;
  if (
    weeks === undefined &&
    days === undefined &&
    hours === undefined &&
    minutes === undefined &&
    seconds === undefined
  ) {
    return undefined;
  }
  const n = (s: string | undefined) => (s === undefined ? 0 : Number(s.replace(',', '.')));
  const totalSeconds = n(weeks) * 604_800 + n(days) * 86_400 + n(hours) * 3_600 + n(minutes) * 60;
  const nanos = Math.round(totalSeconds * NANOS_PER_SECOND + n(seconds) * NANOS_PER_SECOND);
  return nanos > 0 && Number.isSafeInteger(nanos) ? nanos : undefined;
}

/** `time` minus a duration; undefined when that falls outside the times OTLP can carry. */
export function minusNanos(time: HrTime, nanos: number): HrTime | undefined {
  let seconds = time[0] - Math.floor(nanos / NANOS_PER_SECOND);
  let rest = time[1] - (nanos % NANOS_PER_SECOND);
  if (rest < 0) {
    rest += NANOS_PER_SECOND;
    seconds -= 1;
  }
  const start: HrTime = [seconds, rest];
  return isRepresentableTime(start) ? start : undefined;
}
