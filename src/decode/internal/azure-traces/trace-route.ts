import type { HrTime } from '@opentelemetry/api';
import type { RecordRoute, RouteRefusal } from '../../azure-decoder.ts';
import type { DecoderOptions } from '../../decoder.ts';
import type { SpanRecord } from '../../../pipeline/signals.ts';
import { GO_EMPTY_SCOPE } from '../scope.ts';
import { compileTimeLayout, type TimeLayoutParser } from '../time-layout.ts';
import { isRepresentableTime, parseTimestampString } from '../timestamp.ts';
import { spanAttributes } from './span-attributes.ts';
import { readTraceFields, TraceFieldError, type TraceFields } from './trace-fields.ts';
import { spanIdsOf } from './trace-ids.ts';
import { TraceResources } from './trace-resources.ts';

/** `error.type` of an Application Insights record that stays a log record because it is no valid span. */
export const ERROR_INVALID_TRACE_RECORD = 'invalid_trace_record';

/** The Application Insights tables that become spans (`Type`): requests are server spans, dependencies client. */
const SPAN_KIND_BY_TYPE: Readonly<Record<string, 2 | 3>> = { AppRequests: 2, AppDependencies: 3 };

const NANOS_PER_SECOND = 1_000_000_000;

/**
 * The `azure` format's traces route: Application Insights requests and dependencies exported through
 * diagnostic settings (`Type` `AppRequests` / `AppDependencies`) become spans as the Go receiver's traces
 * translator makes them (docs/formats.md, "Traces"). Every other record is left to the log path. A request
 * or dependency that is no valid span (ids that are not W3C hex ids, a time that does not parse, a field of
 * the wrong type) is refused: it stays a log record with `error.type` = `invalid_trace_record`.
 * Bad `traceTimeFormats` throw here, at configuration time.
 */
export function createTraceRoute(options: DecoderOptions): RecordRoute {
  const timeParsers = (options.traceTimeFormats ?? []).map((layout, index) => {
    try {
      return compileTimeLayout(layout);
    } catch (error) {
      throw new Error(`traceTimeFormats[${index}]: ${(error as Error).message}`, { cause: error });
    }
  });
  const resources = new TraceResources();
  return (record, _enqueuedMs, state) => {
    // Azure writes `Type`; Go's case-insensitive decoding would also take `type`.
    const type = record['Type'] ?? record['type'];
    if (typeof type !== 'string' || SPAN_KIND_BY_TYPE[type] === undefined) return false;
    const span = decodeSpan(record, timeParsers, resources);
    if ('errorType' in span) return span;
    state.spans.push(span);
    return true;
  };
}

function decodeSpan(
  record: Record<string, unknown>,
  timeParsers: readonly TimeLayoutParser[],
  resources: TraceResources,
): SpanRecord | RouteRefusal {
  let f: TraceFields;
  try {
    f = readTraceFields(record);
  } catch (error) {
    if (error instanceof TraceFieldError) return refuse(error.message);
    throw error;
  }
  // The field matched case-insensitively may differ from the `Type`/`type` we routed on: Go goes by the field.
  const kind = SPAN_KIND_BY_TYPE[f.type];
  if (kind === undefined) return refuse(`Type ${JSON.stringify(f.type)} is neither AppRequests nor AppDependencies`);
  const ids = spanIdsOf(f.operationId, f.id, f.parentId);
  if (!ids.ok) return refuse(ids.message);
  const startTime = parseTime(f.time, timeParsers);
  if (startTime === undefined) return refuse(`time ${JSON.stringify(f.time.slice(0, 64))} does not parse`);
  const endTime = addDurationMs(startTime, f.durationMs);
  if (endTime === undefined) return refuse(`DurationMs ${f.durationMs} is not a duration`);
  return {
    resource: resources.get(f.resourceId, f.appRoleName),
    scope: GO_EMPTY_SCOPE,
    traceId: ids.traceId,
    spanId: ids.spanId,
    parentSpanId: ids.parentSpanId,
    name: f.name,
    kind,
    startTime,
    endTime,
    attributes: spanAttributes(f),
    // Go: Success true is OK, anything else (false, or absent) an error.
    status: { code: f.success ? 1 : 2 },
  };
}

const refuse = (errorMessage: string): RouteRefusal => ({ errorType: ERROR_INVALID_TRACE_RECORD, errorMessage });

/** `time_formats.traces` layouts first, then the built-in formats, as Go tries its layouts before ISO 8601. */
function parseTime(value: string, parsers: readonly TimeLayoutParser[]): HrTime | undefined {
  for (const parse of parsers) {
    const t = parse(value);
    if (t) return t;
  }
  return parseTimestampString(value);
}

/**
 * start + DurationMs, with Go's arithmetic: `DurationMs * 1e6` in float64, cut to whole nanoseconds
 * (4.132 ms is 4131999 ns). Undefined for a negative, non-finite or unrepresentable result.
 */
function addDurationMs(start: HrTime, durationMs: number): HrTime | undefined {
  const nanos = Math.trunc(durationMs * 1e6);
  if (!Number.isFinite(nanos) || nanos < 0) return undefined;
  let end: HrTime;
  if (nanos <= Number.MAX_SAFE_INTEGER) {
    const total = start[1] + nanos;
    const seconds = Math.floor(total / NANOS_PER_SECOND);
    end = [start[0] + seconds, total - seconds * NANOS_PER_SECOND];
  } else {
    const total = BigInt(start[1]) + BigInt(nanos);
    end = [start[0] + Number(total / 1_000_000_000n), Number(total % 1_000_000_000n)];
  }
  return isRepresentableTime(end) ? end : undefined;
}
