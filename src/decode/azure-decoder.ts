import type { LogBody } from '@opentelemetry/api-logs';
import type { ReceivedEvent } from '../backends/consumer.ts';
import { mapAzureRecord, NestingTooDeepError, type AzureMapping } from './internal/azure-record.ts';
import { ATTR_TIMESTAMP_FALLBACK } from './internal/azure-names.ts';
import { mapSemconvRecord } from './internal/azurelogs/map-record.ts';
import { ATTR_ERROR_MESSAGE, ATTR_ERROR_TYPE, enqueuedMsOf } from './internal/event-attributes.ts';
import {
  ERROR_DECODER,
  ERROR_INVALID_JSON,
  ERROR_INVALID_UTF8,
  ERROR_NESTING_TOO_DEEP,
  ERROR_UNEXPECTED_SHAPE,
  eventText,
  nestsDeeperThan,
  parseJson,
} from './internal/parse-json.ts';
import { pushRawError, rawErrorRecord, type BatchState } from './internal/records.ts';
import type { Sanitizer } from './internal/sanitize.ts';

/**
 * Takes a record of another signal: appends what it decodes to `state.metrics` or `state.spans` and
 * returns true, or returns false to leave the record a log record. A record that is of the route's signal
 * but cannot be decoded as such returns a RouteRefusal: it stays a log record, flagged with the refusal's
 * `error.type` / `error.message`, and is counted in `stats.refusedRecords`. May throw like a log mapping:
 * the whole event is then exported raw.
 */
export type RecordRoute = (
  record: Record<string, unknown>,
  enqueuedMs: number,
  state: BatchState,
) => boolean | RouteRefusal;

/** Why a route left a record of its signal a log record (see RecordRoute). */
export interface RouteRefusal {
  /** `error.type` on the log record, e.g. `invalid_trace_record`. */
  readonly errorType: string;
  /** `error.message`: what was wrong, short. */
  readonly errorMessage: string;
}

/** Everything the `azure` format needs, built once by createDecoder. */
export interface AzureFormatConfig extends AzureMapping {
  readonly sanitizers: readonly Sanitizer[];
  readonly maxSanitizeChars: number;
  /** Routes tried, in order, before a record becomes a log record (metrics, traces). Default none. */
  readonly routes?: readonly RecordRoute[];
}

/**
 * The `azure` format: an Azure Monitor diagnostic-settings body `{"records": [...]}` (also a bare array or
 * one record object) becomes one log record per record. Appends to `state.records`; never throws for bad
 * input: an event that cannot be decoded becomes one raw record with `error.type`.
 */
export function decodeAzureEvent(event: ReceivedEvent, state: BatchState, config: AzureFormatConfig): void {
  const enqueuedMs = enqueuedMsOf(event, state.observedMs);
  const text = eventText(event.body);
  if (text === undefined) {
    pushRawError(
      state,
      event,
      undefined,
      enqueuedMs,
      config.resources.empty,
      ERROR_INVALID_UTF8,
      'event body is not valid UTF-8',
      config.scope,
    );
    return;
  }
  const parsed = parseJson(text, config.sanitizers, config.maxSanitizeChars);
  if (!parsed.ok) {
    pushRawError(
      state,
      event,
      text,
      enqueuedMs,
      config.resources.empty,
      ERROR_INVALID_JSON,
      parsed.message,
      config.scope,
    );
    return;
  }
  if (parsed.sanitized) state.stats.sanitizedEvents++;

  const value = parsed.value;
  let items: readonly unknown[];
  if (Array.isArray(value)) items = value;
  else if (typeof value === 'object' && value !== null) {
    const records = (value as { records?: unknown }).records;
    items = Array.isArray(records) ? records : [value];
  } else {
    pushRawError(
      state,
      event,
      text,
      enqueuedMs,
      config.resources.empty,
      ERROR_UNEXPECTED_SHAPE,
      'body is JSON but neither an object nor an array',
      config.scope,
    );
    return;
  }

  const start = state.records.length;
  const metricsStart = state.metrics.length;
  const spansStart = state.spans.length;
  const routes = config.routes ?? [];
  let fallbacks = 0;
  let refused = 0;
  try {
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        // Not a record: kept as its own record, flagged, rather than dropped.
        if (Array.isArray(item) && nestsDeeperThan(item, config.maxNestingDepth)) {
          throw new NestingTooDeepError(`records[${i}] nests deeper than ${config.maxNestingDepth} levels`);
        }
        const odd = rawErrorRecord(
          state,
          event,
          undefined,
          enqueuedMs,
          config.resources.empty,
          ERROR_UNEXPECTED_SHAPE,
          `records[${i}] is not an object`,
          config.scope,
        );
        state.records.push({ ...odd, body: item as LogBody });
        continue;
      }
      let refusal: RouteRefusal | undefined;
      if (routes.length > 0) {
        const verdict = routeRecord(routes, item as Record<string, unknown>, enqueuedMs, state);
        if (verdict === true) continue;
        if (verdict !== false) refusal = verdict;
      }
      const map = config.semanticConventions ? mapSemconvRecord : mapAzureRecord;
      const record = map(item as Record<string, unknown>, enqueuedMs, state.observed, config);
      if (record.attributes[ATTR_TIMESTAMP_FALLBACK] !== undefined) fallbacks++;
      if (refusal !== undefined) {
        record.attributes[ATTR_ERROR_TYPE] = refusal.errorType;
        record.attributes[ATTR_ERROR_MESSAGE] = refusal.errorMessage;
        refused++;
      }
      state.records.push(record);
    }
  } catch (error) {
    // One bad record makes the whole event raw: its text holds every record, nothing is half-exported.
    state.records.length = start;
    state.metrics.length = metricsStart;
    state.spans.length = spansStart;
    const deep = error instanceof NestingTooDeepError;
    pushRawError(
      state,
      event,
      text,
      enqueuedMs,
      config.resources.empty,
      deep ? ERROR_NESTING_TOO_DEEP : ERROR_DECODER,
      (error as Error)?.message,
      config.scope,
    );
    return;
  }
  state.stats.timestampFallbacks += fallbacks;
  if (refused > 0) state.stats.refusedRecords = (state.stats.refusedRecords ?? 0) + refused;
}

/** The first verdict other than false: true (taken), a refusal, or false when no route wants the record. */
function routeRecord(
  routes: readonly RecordRoute[],
  record: Record<string, unknown>,
  enqueuedMs: number,
  state: BatchState,
): boolean | RouteRefusal {
  for (const route of routes) {
    const verdict = route(record, enqueuedMs, state);
    if (verdict !== false) return verdict;
  }
  return false;
}
