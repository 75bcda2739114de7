import type { HrTime } from '@opentelemetry/api';
import type { LogAttributes, LogBody, SeverityNumber } from '@opentelemetry/api-logs';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ReceivedEvent } from '../../backends/consumer.ts';
import type { DecodeContext } from '../decoder.ts';
import { ATTR_ERROR_MESSAGE, ATTR_ERROR_TYPE } from './event-attributes.ts';
import { INSTRUMENTATION_SCOPE } from './scope.ts';
import { hrTimeFromMs } from './timestamp.ts';
import type { MetricPoint, SpanRecord } from '../../pipeline/signals.ts';

/** Mutable counters behind DecodeStats. */
export interface MutableStats {
  failedEvents: number;
  sanitizedEvents: number;
  timestampFallbacks: number;
  /** Records a route recognised but refused (they stay log records with `error.type`); absent when none. */
  refusedRecords?: number;
}

/** What one decode call shares between its events. */
export interface BatchState {
  readonly context: DecodeContext;
  readonly observed: HrTime;
  readonly observedMs: number;
  readonly stats: MutableStats;
  readonly records: ReadableLogRecord[];
  /** Metric points decoded so far (only when the decoder feeds metrics). */
  readonly metrics: MetricPoint[];
  /** Spans decoded so far (only when the decoder feeds traces). */
  readonly spans: SpanRecord[];
}

/**
 * A decoded log record: a ReadableLogRecord plus the sequence number of the event it came from (set by
 * createDecoder; read when an exporter refuses the record, to dead-letter its event alone). Exporters ignore it.
 */
export interface DecodedLogRecord extends ReadableLogRecord {
  eventSequenceNumber: number | undefined;
  /** The attribute keys whose numbers are Go float64s (pipeline/double-values.ts), shared sets; none when undefined. */
  attributeDoubles: Set<string> | undefined;
  /** The same for the keys of a map body; when undefined, the body map's own mark (if any) is read. */
  bodyDoubles: Set<string> | undefined;
}

/** One record with every field present, so all records share one object shape. */
export function makeRecord(
  hrTime: HrTime,
  observed: HrTime,
  body: LogBody,
  attributes: LogAttributes,
  resource: Resource,
  severityNumber?: SeverityNumber,
  severityText?: string,
  eventName?: string,
  scope: ReadableLogRecord['instrumentationScope'] = INSTRUMENTATION_SCOPE,
  attributeDoubles?: Set<string>,
  bodyDoubles?: Set<string>,
): ReadableLogRecord {
  const record: DecodedLogRecord = {
    hrTime,
    hrTimeObserved: observed,
    severityNumber,
    severityText,
    body,
    eventName,
    attributes,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    eventSequenceNumber: undefined,
    attributeDoubles,
    bodyDoubles,
  };
  return record;
}

/**
 * The record for an event that could not be decoded: the body as text (its bytes when not UTF-8), the
 * enqueued time, and `error.type` (plus a short `error.message`) saying why.
 */
export function rawErrorRecord(
  state: BatchState,
  event: ReceivedEvent,
  text: string | undefined,
  enqueuedMs: number,
  resource: Resource,
  errorType: string,
  errorMessage?: string,
  scope: ReadableLogRecord['instrumentationScope'] = INSTRUMENTATION_SCOPE,
): ReadableLogRecord {
  const attributes: LogAttributes = { [ATTR_ERROR_TYPE]: errorType };
  if (errorMessage) attributes[ATTR_ERROR_MESSAGE] = errorMessage;
  return makeRecord(
    hrTimeFromMs(enqueuedMs),
    state.observed,
    text ?? bytesOf(event),
    attributes,
    resource,
    undefined,
    undefined,
    undefined,
    scope,
  );
}

/** Counts the event as failed and adds its raw error record (see rawErrorRecord) to the batch. */
export function pushRawError(...args: Parameters<typeof rawErrorRecord>): void {
  args[0].stats.failedEvents++;
  args[0].records.push(rawErrorRecord(...args));
}

/** The body bytes as a plain Uint8Array (exporters base64 them as OTLP bytesValue). */
export function bytesOf(event: ReceivedEvent): Uint8Array {
  const body = event.body;
  return body instanceof Uint8Array ? body : new Uint8Array(0);
}
