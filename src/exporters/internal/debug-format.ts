import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { HrTime } from '@opentelemetry/api';
import type { SignalBatch } from '../../pipeline/signal-batch.ts';
import { doublesUnder, recordAttributeDoubles } from '../../pipeline/double-values.ts';
import { int64String, isInt64, wireTime } from './otlp-wire-values.ts';

/*
 * Text renderings of a batch for the debug exporter, modelled on the collector's debug exporter output
 * (basic: one summary line; normal: one line per record; detailed: every field, typed values).
 */

const SEVERITY_NAMES = [
  'Unspecified',
  'Trace',
  'Trace2',
  'Trace3',
  'Trace4',
  'Debug',
  'Debug2',
  'Debug3',
  'Debug4',
  'Info',
  'Info2',
  'Info3',
  'Info4',
  'Warn',
  'Warn2',
  'Warn3',
  'Warn4',
  'Error',
  'Error2',
  'Error3',
  'Error4',
  'Fatal',
  'Fatal2',
  'Fatal3',
  'Fatal4',
];

/** Groups records by resource, then scope, keeping first-seen order (as the OTLP transformer does). */
function group(
  records: readonly ReadableLogRecord[],
): Map<ReadableLogRecord['resource'], Map<ReadableLogRecord['instrumentationScope'], ReadableLogRecord[]>> {
  const byResource = new Map<
    ReadableLogRecord['resource'],
    Map<ReadableLogRecord['instrumentationScope'], ReadableLogRecord[]>
  >();
  for (const r of records) {
    let byScope = byResource.get(r.resource);
    if (!byScope) byResource.set(r.resource, (byScope = new Map()));
    let list = byScope.get(r.instrumentationScope);
    if (!list) byScope.set(r.instrumentationScope, (list = []));
    list.push(r);
  }
  return byResource;
}

/** `Logs {"resource logs": 1, "log records": 3, "partition": "0"}` */
export function formatBasic(batch: SignalBatch): string {
  const resources = group(batch.records).size;
  const counts = {
    'resource logs': resources,
    'log records': batch.records.length,
    partition: batch.source.partitionId,
  };
  return `Logs\t${JSON.stringify(counts)}\n`;
}

/** One line per record: the body, then its attributes as `k=v`. */
export function formatNormal(batch: SignalBatch): string {
  let out = formatBasic(batch);
  for (const r of batch.records) {
    const attrs = Object.entries(r.attributes).map(([k, v]) => `${k}=${plain(v)}`);
    out += `${plain(r.body)}${attrs.length ? ` ${attrs.join(' ')}` : ''}\n`;
  }
  return out;
}

/** Every field of every record, with its resource and scope, values tagged with their OTLP type. */
export function formatDetailed(batch: SignalBatch): string {
  let out = formatBasic(batch);
  let ri = 0;
  for (const [resource, scopes] of group(batch.records)) {
    out +=
      `ResourceLog #${ri++}\nResource SchemaURL: ${resource.schemaUrl ?? ''}\nResource ` +
      `attributes:\n${attributes(resource.attributes)}`;
    let si = 0;
    for (const [scope, records] of scopes) {
      out +=
        `ScopeLogs #${si++}\nScopeLogs SchemaURL: ${scope.schemaUrl ?? ''}\nInstrumentationScope ${scope.name} ` +
        `${scope.version ?? ''}\n`;
      if (scope.attributes) out += `InstrumentationScope attributes:\n${attributes(scope.attributes)}`;
      records.forEach((r, i) => {
        const severity = r.severityNumber ?? 0;
        out +=
          `LogRecord #${i}\n` +
          `ObservedTimestamp: ${timestamp(r.hrTimeObserved)}\n` +
          `Timestamp: ${timestamp(r.hrTime)}\n` +
          `SeverityText: ${r.severityText ?? ''}\n` +
          `SeverityNumber: ${SEVERITY_NAMES[severity] ?? 'Unknown'}(${severity})\n` +
          (r.eventName ? `EventName: ${r.eventName}\n` : '') +
          `Body: ${typed(r.body)}\n` +
          `Attributes:\n${attributes(r.attributes, recordAttributeDoubles(r))}` +
          `Trace ID: ${r.spanContext?.traceId ?? ''}\n` +
          `Span ID: ${r.spanContext?.spanId ?? ''}\n` +
          `Flags: ${r.spanContext?.traceFlags ?? 0}\n`;
      });
    }
  }
  return out;
}

export function attributes(attrs: Readonly<Record<string, unknown>>, keys?: Set<string>): string {
  return Object.entries(attrs)
    .map(([k, v]) => `     -> ${k}: ${typed(v, keys?.has(k) === true || doublesUnder(attrs, k, false))}\n`)
    .join('');
}

/** The time the OTLP encoders write (1970-01-01 00:00:00 for one they cannot carry, see otlp-wire-values.ts). */
export function timestamp(time: HrTime): string {
  const t = wireTime(time);
  const ms = t[0] * 1000 + Math.floor(t[1] / 1e6);
  const iso = new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
  return `${iso.slice(0, 19)}.${String(t[1]).padStart(9, '0')} +0000 UTC`;
}

export function plain(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  return JSON.stringify(value, (_k, v: unknown) =>
    v instanceof Uint8Array ? Buffer.from(v).toString('base64') : typeof v === 'bigint' ? v.toString() : v,
  );
}

/**
 * The collector's typed rendering: Str(x), Int(1), Double(1.5), Bool(true), Bytes(..), Slice([...]), Map({...}).
 * `doubles`: a number marked as a double (pipeline/double-values.ts) is Double(5), as on the wire.
 */
export function typed(value: unknown, doubles = false): string {
  if (value === undefined || value === null) return 'Empty()';
  if (typeof value === 'string') return `Str(${value})`;
  if (typeof value === 'boolean') return `Bool(${value})`;
  // as on the wire
  if (typeof value === 'number') return !doubles && isInt64(value) ? `Int(${int64String(value)})` : `Double(${value})`;
  if (value instanceof Uint8Array) return `Bytes(${Buffer.from(value).toString('base64')})`;
  if (Array.isArray(value)) return `Slice(${plain(value)})`;
  return `Map(${plain(value)})`;
}

const SHORT_SEVERITY = [
  '',
  'TRACE',
  'TRACE',
  'TRACE',
  'TRACE',
  'DEBUG',
  'DEBUG',
  'DEBUG',
  'DEBUG',
  'INFO',
  'INFO',
  'INFO',
  'INFO',
  'WARN',
  'WARN',
  'WARN',
  'WARN',
  'ERROR',
  'ERROR',
  'ERROR',
  'ERROR',
  'FATAL',
  'FATAL',
  'FATAL',
  'FATAL',
];
const CATEGORY_KEYS = ['azure.category', 'category', 'event.name'];
const OPERATION_KEYS = ['azure.operation.name', 'operation.name'];

/**
 * One line per record for a person watching a terminal: time, severity, category (or operation), body;
 * cut to `width` characters. No batch line: `npm start` prints its own status line. Not a collector
 * verbosity (the collector has basic, normal and detailed); the others stay as the collector prints them.
 */
export function formatCompact(batch: SignalBatch, width: number): string {
  let out = '';
  for (const r of batch.records) {
    const ms = r.hrTime[0] * 1000 + Math.floor(r.hrTime[1] / 1e6);
    const time = Number.isFinite(ms) ? new Date(ms).toISOString().slice(11, 23) : '??:??:??.???';
    const severity = (SHORT_SEVERITY[r.severityNumber ?? 0] || r.severityText || '-').slice(0, 5).padEnd(5);
    const body = r.body as unknown;
    const map =
      typeof body === 'object' && body !== null && !Array.isArray(body) && !(body instanceof Uint8Array)
        ? (body as Record<string, unknown>)
        : undefined;
    const what =
      firstString(r.attributes, CATEGORY_KEYS) ??
      firstString(map, CATEGORY_KEYS) ??
      firstString(r.attributes, OPERATION_KEYS) ??
      firstString(map, OPERATION_KEYS) ??
      r.eventName ??
      '-';
    // Go's default layout leaves most bodies empty: show the operation and the properties instead.
    const shown =
      plain(map?.message ?? body) ||
      [firstString(r.attributes, OPERATION_KEYS), plain(r.attributes['azure.properties'])].filter(Boolean).join(' ');
    const text = shown.replace(/\s+/g, ' ');
    out += cut(`${time} ${severity} ${what.padEnd(24)} ${text}`, width) + '\n';
  }
  return out;
}

function firstString(
  attrs: Readonly<Record<string, unknown>> | undefined,
  keys: readonly string[],
): string | undefined {
  if (!attrs) return undefined;
  for (const k of keys) {
    const v = attrs[k];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

export function cut(line: string, width: number): string {
  return line.length <= width ? line : `${line.slice(0, Math.max(1, width - 1))}…`;
}
