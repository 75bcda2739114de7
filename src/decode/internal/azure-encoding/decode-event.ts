import type { LogAttributes, LogBody } from '@opentelemetry/api-logs';
import type { ReceivedEvent } from '../../../backends/consumer.ts';
import { ATTR_TIMESTAMP_FALLBACK } from '../azure-names.ts';
import { enqueuedMsOf, RecordAttributes } from '../event-attributes.ts';
import { ERROR_INVALID_JSON, ERROR_INVALID_UTF8, ERROR_UNEXPECTED_SHAPE, eventText, parseJson } from '../parse-json.ts';
import type { Sanitizer } from '../sanitize.ts';
import { makeRecord, pushRawError, rawErrorRecord, type BatchState } from '../records.ts';
import { encodingScope, GO_ENCODING_RAW_SCOPE } from '../scope.ts';
import type { TimeLayoutParser } from '../time-layout.ts';
import { hrTimeFromMs, parseTimestampString } from '../timestamp.ts';
import { encodingFormatFor, mapperFor } from './categories.ts';
import { Fields, FieldTypeError, type JsonObject } from './fields.ts';
import { keepUnmappedFields } from './kept-fields.ts';
import { emptyMapped } from './mapped-record.ts';
import type { EncodingResourceCache } from './resources.ts';

/** Everything the `azure_encoding` format needs, built once by createDecoder. */
export interface AzureEncodingConfig {
  /** The repairs tried when the event's JSON does not parse (the same as every format's, sanitize.ts). */
  readonly sanitizers: readonly Sanitizer[];
  readonly maxSanitizeChars: number;
  readonly timeParsers: readonly TimeLayoutParser[];
  /** When non-empty, only these categories are decoded (others are dropped, as the extension does). */
  readonly includeCategories: ReadonlySet<string>;
  /** Categories dropped; wins over includeCategories. */
  readonly excludeCategories: ReadonlySet<string>;
  readonly resources: EncodingResourceCache;
}

/**
 * The `azure_encoding` format: the output of the Go `azure_encoding` extension's logs unmarshaler, one log
 * record per resource-log record. Never throws for bad input.
 */
export function decodeAzureEncodingEvent(event: ReceivedEvent, state: BatchState, config: AzureEncodingConfig): void {
  const enqueuedMs = enqueuedMsOf(event, state.observedMs);
  const text = eventText(event.body);
  const empty = config.resources.empty;
  if (text === undefined) {
    pushRawError(
      state,
      event,
      undefined,
      enqueuedMs,
      empty,
      ERROR_INVALID_UTF8,
      'event body is not valid UTF-8',
      GO_ENCODING_RAW_SCOPE,
    );
    return;
  }
  if (text.trim() === '') return; // the extension yields nothing for an empty body
  const items = recordsOf(text, state, config);
  if (typeof items === 'string') {
    const type = items === ERROR_INVALID_JSON ? ERROR_INVALID_JSON : ERROR_UNEXPECTED_SHAPE;
    pushRawError(state, event, text, enqueuedMs, empty, type, 'not an Azure resource-log batch', GO_ENCODING_RAW_SCOPE);
    return;
  }
  for (const item of items) decodeItem(item, event, state, config, enqueuedMs);
}

/**
 * `{"records": [...]}`, a bare array, or one JSON record per line; an error type otherwise. Text that does not
 * parse goes through the sanitizers first, on the raw text, as in the other formats (parse-json.ts).
 */
function recordsOf(text: string, state: BatchState, config: AzureEncodingConfig): readonly unknown[] | string {
  let value: unknown;
  const parsed = parseJson(text, config.sanitizers, config.maxSanitizeChars);
  if (parsed.ok) {
    value = parsed.value;
    if (parsed.sanitized) state.stats.sanitizedEvents++;
  } else {
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    if (lines.length < 2) return ERROR_INVALID_JSON;
    try {
      return lines.map((line) => JSON.parse(line) as unknown);
    } catch {
      return ERROR_INVALID_JSON;
    }
  }
  if (Array.isArray(value)) return value;
  if (typeof value === 'object' && value !== null) {
    const records = (value as { records?: unknown }).records;
    if (Array.isArray(records)) return records;
  }
  return ERROR_UNEXPECTED_SHAPE;
}

function decodeItem(
  item: unknown,
  event: ReceivedEvent,
  state: BatchState,
  config: AzureEncodingConfig,
  enqueuedMs: number,
): void {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    const odd = rawErrorRecord(
      state,
      event,
      undefined,
      enqueuedMs,
      config.resources.empty,
      ERROR_UNEXPECTED_SHAPE,
      'a record is not an object',
      GO_ENCODING_RAW_SCOPE,
    );
    state.records.push({ ...odd, body: item as LogBody });
    return;
  }
  const fields = new Fields(item as JsonObject);
  const categoryValue = fields.get('category');
  const typeValue = fields.get('type');
  const category =
    (typeof categoryValue === 'string' && categoryValue) || (typeof typeValue === 'string' ? typeValue : '');
  if (category === '') {
    pushRaw(item, state, config, enqueuedMs, undefined);
    return;
  }
  if (config.excludeCategories.has(category)) return;
  if (config.includeCategories.size > 0 && !config.includeCategories.has(category)) return;

  // The shared constructor: in-object properties, see RecordAttributes.
  const mapped = emptyMapped(category, new RecordAttributes());
  try {
    mapperFor(category)(fields, mapped);
  } catch (error) {
    if (!(error instanceof FieldTypeError)) throw error;
    pushRaw(item, state, config, enqueuedMs, undefined);
    return;
  }
  const time = parseTime(mapped.timeText, config.timeParsers);
  if (time === undefined) {
    pushRaw(item, state, config, enqueuedMs, mapped.timeText === '' ? 'missing' : 'unparsable');
    return;
  }
  keepUnmappedFields(item as JsonObject, mapped);
  state.records.push(
    makeRecord(
      time,
      state.observed,
      mapped.body,
      mapped.attributes,
      config.resources.get(mapped.resource),
      mapped.severityNumber,
      mapped.severityText,
      undefined,
      encodingScope(encodingFormatFor(category)),
    ),
  );
}

/**
 * What the extension does with a record it cannot map (no category, a field of the wrong type, no usable
 * time): the record's JSON text as the body, severity "Unspecified", no resource fields. Go stamps it with
 * the current time; we use the enqueued time and say why when the time was the cause.
 */
function pushRaw(
  item: unknown,
  state: BatchState,
  config: AzureEncodingConfig,
  enqueuedMs: number,
  timeFallback: 'missing' | 'unparsable' | undefined,
): void {
  const attributes: LogAttributes = {};
  if (timeFallback !== undefined) {
    attributes[ATTR_TIMESTAMP_FALLBACK] = timeFallback;
    state.stats.timestampFallbacks++;
  }
  state.records.push(
    makeRecord(
      hrTimeFromMs(enqueuedMs),
      state.observed,
      JSON.stringify(item),
      attributes,
      config.resources.empty,
      0,
      'Unspecified',
      undefined,
      GO_ENCODING_RAW_SCOPE,
    ),
  );
}

/** ISO 8601 first (Go's iso8601 parser), then the configured layouts, then our other built-in forms. */
function parseTime(text: string, parsers: readonly TimeLayoutParser[]) {
  if (text === '') return undefined;
  if (text.charCodeAt(4) === 45) {
    const iso = parseTimestampString(text);
    if (iso !== undefined) return iso;
  }
  for (const parse of parsers) {
    const t = parse(text);
    if (t !== undefined) return t;
  }
  return parseTimestampString(text);
}
