import type { LogBody } from '@opentelemetry/api-logs';
import type { ReceivedEvent } from '../backends/consumer.ts';
import { mapAzureRecord, NestingTooDeepError, type AzureMapping } from './internal/azure-record.ts';
import { ATTR_TIMESTAMP_FALLBACK } from './internal/azure-names.ts';
import { mapSemconvRecord } from './internal/azurelogs/map-record.ts';
import { ATTR_ERROR_MESSAGE, ATTR_ERROR_TYPE, enqueuedMsOf, eventAttributes } from './internal/event-attributes.ts';
import {
  ERROR_DECODER, ERROR_INVALID_JSON, ERROR_INVALID_UTF8, ERROR_NESTING_TOO_DEEP, ERROR_UNEXPECTED_SHAPE,
  eventText, nestsDeeperThan, parseJson,
} from './internal/parse-json.ts';
import { rawErrorRecord, type BatchState } from './internal/records.ts';
import type { Sanitizer } from './internal/sanitize.ts';

/**
 * Takes a record of another signal: appends what it decodes to `state.metrics` or `state.spans` and
 * returns true, or returns false to leave the record a log record. A record of the route's signal that it
 * cannot decode is returned as KeptAsLog: it stays a log record, flagged, instead of being lost. May throw
 * like a log mapping: the whole event is then exported raw. `base` holds the event's messaging attributes.
 */
export type RecordRoute = (
  record: Record<string, unknown>,
  base: Readonly<Record<string, unknown>>,
  enqueuedMs: number,
  state: BatchState,
) => boolean | KeptAsLog;

/** Why a record of a route's signal stays a log record: written to its `error.type` and `error.message`. */
export interface KeptAsLog {
  readonly errorType: string;
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
    state.stats.failedEvents++;
    state.records.push(rawErrorRecord(state, event, undefined, enqueuedMs, config.resources.empty, ERROR_INVALID_UTF8, 'event body is not valid UTF-8'));
    return;
  }
  const parsed = parseJson(text, config.sanitizers, config.maxSanitizeChars);
  if (!parsed.ok) {
    state.stats.failedEvents++;
    state.records.push(rawErrorRecord(state, event, text, enqueuedMs, config.resources.empty, ERROR_INVALID_JSON, parsed.message));
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
    state.stats.failedEvents++;
    state.records.push(rawErrorRecord(state, event, text, enqueuedMs, config.resources.empty, ERROR_UNEXPECTED_SHAPE, 'body is JSON but neither an object nor an array'));
    return;
  }

  const base = eventAttributes(event, state.context, enqueuedMs);
  const start = state.records.length;
  const metricsStart = state.metrics.length;
  const spansStart = state.spans.length;
  const routes = config.routes ?? [];
  let fallbacks = 0;
  let keptAsLogs = 0;
  try {
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        // Not a record: kept as its own record, flagged, rather than dropped.
        if (Array.isArray(item) && nestsDeeperThan(item, config.maxNestingDepth)) {
          throw new NestingTooDeepError(`records[${i}] nests deeper than ${config.maxNestingDepth} levels`);
        }
        const odd = rawErrorRecord(state, event, undefined, enqueuedMs, config.resources.empty, ERROR_UNEXPECTED_SHAPE, `records[${i}] is not an object`);
        state.records.push({ ...odd, body: item as LogBody });
        continue;
      }
      let taken = false;
      let kept: KeptAsLog | undefined;
      for (let r = 0; r < routes.length; r++) {
        const outcome = routes[r]!(item as Record<string, unknown>, base, enqueuedMs, state);
        if (outcome === false) continue;
        if (outcome === true) taken = true;
        else kept = outcome;
        break;
      }
      if (taken) continue;
      const map = config.semanticConventions ? mapSemconvRecord : mapAzureRecord;
      const record = map(item as Record<string, unknown>, base, enqueuedMs, state.observed, config);
      if (record.attributes[ATTR_TIMESTAMP_FALLBACK] !== undefined) fallbacks++;
      if (kept !== undefined) {
        record.attributes[ATTR_ERROR_TYPE] = kept.errorType;
        record.attributes[ATTR_ERROR_MESSAGE] = kept.errorMessage;
        keptAsLogs++;
      }
      state.records.push(record);
    }
  } catch (error) {
    // One bad record makes the whole event raw: its text holds every record, nothing is half-exported.
    state.records.length = start;
    state.metrics.length = metricsStart;
    state.spans.length = spansStart;
    state.stats.failedEvents++;
    const deep = error instanceof NestingTooDeepError;
    state.records.push(rawErrorRecord(state, event, text, enqueuedMs, config.resources.empty, deep ? ERROR_NESTING_TOO_DEEP : ERROR_DECODER, (error as Error)?.message));
    return;
  }
  state.stats.timestampFallbacks += fallbacks;
  // Set only when it happens, so the stats of a logs-only decoder keep their three fields.
  if (keptAsLogs > 0) state.stats.signalRecordsKeptAsLogs = (state.stats.signalRecordsKeptAsLogs ?? 0) + keptAsLogs;
}
