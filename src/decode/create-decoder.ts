import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ReceivedEvent } from '../backends/consumer.ts';
import { decodeAzureEvent, type AzureFormatConfig } from './azure-decoder.ts';
import { createKeyCache } from './internal/azure-record.ts';
import type { DecodeContext, DecodeResult, Decoder, DecoderOptions, EventMetadataMode, Format } from './decoder.ts';
import { ATTR_CLOUD_PROVIDER, CLOUD_PROVIDER_AZURE, GO_RECEIVER_NAMES, SEMCONV_NAMES } from './internal/azure-names.ts';
import { addEventMetadata, enqueuedMsOf } from './internal/event-attributes.ts';
import { ATTR_LOG_RECORD_UID, recordUid } from './internal/record-uid.ts';
import { ERROR_DECODER, eventText } from './internal/parse-json.ts';
import {
  makeRecord,
  rawErrorRecord,
  type BatchState,
  type DecodedLogRecord,
  type MutableStats,
} from './internal/records.ts';
import { ResourceCache } from './internal/resource-cache.ts';
import { createSemconvResources } from './internal/azurelogs/semconv-resources.ts';
import { buildSanitizers, DEFAULT_BUILTIN_SANITIZERS } from './internal/sanitize.ts';
import { compileTimeLayout } from './internal/time-layout.ts';
import { hrTimeFromMs } from './internal/timestamp.ts';
import { GO_AZURE_SCOPE, GO_AZURELOGS_SCOPE } from './internal/scope.ts';
import { decodeAzureEncodingEvent } from './internal/azure-encoding/decode-event.ts';
import { EncodingResourceCache } from './internal/azure-encoding/resources.ts';
import { decodeJsonEvent } from './json-decoder.ts';
import { noteItemEvent } from '../pipeline/signals.ts';
import { createMetricRoute } from './internal/azure-metrics/metric-route.ts';
import { createTraceRoute } from './internal/azure-traces/trace-route.ts';
import { decodeRawEvent } from './raw-decoder.ts';

/** Default for DecoderOptions.maxSanitizeChars: 4 MiB of text. */
export const DEFAULT_MAX_SANITIZE_CHARS = 4 * 1024 * 1024;
/** Default for DecoderOptions.maxNestingDepth, in levels of maps/arrays. */
export const DEFAULT_MAX_NESTING_DEPTH = 64;

type EventDecoder = (event: ReceivedEvent, state: BatchState) => void;

/**
 * Builds the decoder for one format. Invalid options (an unknown format, a bad regex or time layout)
 * throw here, at configuration time; the returned decoder never throws.
 */
export function createDecoder(options: DecoderOptions): Decoder {
  const sanitizers = buildSanitizers(options.builtinSanitizers ?? DEFAULT_BUILTIN_SANITIZERS, options.sanitizers ?? []);
  const maxSanitizeChars = options.maxSanitizeChars ?? DEFAULT_MAX_SANITIZE_CHARS;
  const maxNestingDepth = options.maxNestingDepth ?? DEFAULT_MAX_NESTING_DEPTH;
  const now = options.now ?? Date.now;
  const metadataMode = eventMetadataMode(options.format, options.eventMetadata);
  const withUid = options.recordUid === true;
  const semanticConventions = options.applySemanticConventions === true;
  const names = semanticConventions ? SEMCONV_NAMES : GO_RECEIVER_NAMES;
  const resources = semanticConventions
    ? createSemconvResources()
    : new ResourceCache(
        names.resourceId,
        names.providerOnResource ? { [ATTR_CLOUD_PROVIDER]: CLOUD_PROVIDER_AZURE } : {},
        true,
      );

  let decodeEvent: EventDecoder;
  switch (options.format) {
    case 'azure': {
      const timeParsers = compileTimeFormats(options.timeFormats);
      const signals = options.signals ?? new Set(['logs']);
      const routes = [
        ...(signals.has('metrics') ? [createMetricRoute(options)] : []),
        ...(signals.has('traces') ? [createTraceRoute(options)] : []),
      ];
      const config: AzureFormatConfig = {
        names,
        semanticConventions,
        timeParsers,
        maxNestingDepth,
        resources,
        sanitizers,
        maxSanitizeChars,
        keys: createKeyCache(),
        routes,
        scope: semanticConventions ? GO_AZURELOGS_SCOPE : GO_AZURE_SCOPE,
      };
      decodeEvent = (event, state) => decodeAzureEvent(event, state, config);
      break;
    }
    case 'json': {
      const config = { sanitizers, maxSanitizeChars, maxNestingDepth, resource: resources.empty };
      decodeEvent = (event, state) => decodeJsonEvent(event, state, config);
      break;
    }
    case 'azure_encoding': {
      const config = {
        sanitizers,
        maxSanitizeChars,
        timeParsers: compileTimeFormats(options.timeFormats),
        includeCategories: new Set(options.includeCategories ?? []),
        excludeCategories: new Set(options.excludeCategories ?? []),
        resources: new EncodingResourceCache(),
      };
      decodeEvent = (event, state) => decodeAzureEncodingEvent(event, state, config);
      break;
    }
    case 'raw':
      decodeEvent = (event, state) => decodeRawEvent(event, state, resources.empty);
      break;
    default:
      throw new Error(`unknown format "${String(options.format)}"; use azure, azure_encoding, raw or json`);
  }

  return (events: readonly ReceivedEvent[], context: DecodeContext): DecodeResult => {
    const stats: MutableStats = { failedEvents: 0, sanitizedEvents: 0, timestampFallbacks: 0 };
    let observedMs = Date.now();
    try {
      observedMs = now();
    } catch {
      // a broken clock option must not stop the partition
    }
    const state: BatchState = {
      context,
      observed: hrTimeFromMs(observedMs),
      observedMs,
      stats,
      records: [],
      metrics: [],
      spans: [],
    };
    for (const event of events ?? []) {
      const mark = state.records.length;
      const metricsMark = state.metrics.length;
      const spansMark = state.spans.length;
      try {
        decodeEvent(event, state);
        if (state.records.length > mark) finishRecords(state, mark, event, metadataMode, withUid);
        // Points and spans name their event only here (see noteItemEvent): a refused one is dead-lettered alone.
        for (let i = metricsMark; i < state.metrics.length; i++) noteItemEvent(state.metrics[i]!, event.sequenceNumber);
        for (let i = spansMark; i < state.spans.length; i++) noteItemEvent(state.spans[i]!, event.sequenceNumber);
      } catch (error) {
        // A bug, not bad input: still export the event, raw, and say so.
        state.records.length = mark;
        state.metrics.length = metricsMark;
        state.spans.length = spansMark;
        stats.failedEvents++;
        state.records.push(lastResortRecord(state, event, resources, error));
        try {
          finishRecords(state, mark, event, metadataMode, withUid);
        } catch {
          // a broken event object: the record stays as it is
        }
      }
    }
    return {
      records: state.records,
      ...(state.metrics.length > 0 ? { metrics: state.metrics } : {}),
      ...(state.spans.length > 0 ? { spans: state.spans } : {}),
      stats,
    };
  };
}

/** The metadata mode for a format: the Go-compatible formats write none unless asked (docs/formats.md). */
export function eventMetadataMode(format: Format, option: EventMetadataMode | boolean | undefined): EventMetadataMode {
  if (option === true) return 'eventhubs';
  if (option === false) return 'none';
  if (option !== undefined) {
    if (option !== 'none' && option !== 'eventhubs' && option !== 'messaging') {
      throw new Error(
        `eventMetadata "${String(option)}" is not a mode; use none, eventhubs or messaging (or true / false)`,
      );
    }
    return option;
  }
  return format === 'raw' || format === 'json' ? 'messaging' : 'none';
}

/**
 * What every log record of an event gets after its format decoded it: the event it came from (for dead-lettering
 * a refused record), the Event Hubs metadata the mode asks for, and `log.record.uid` when asked.
 */
function finishRecords(
  state: BatchState,
  mark: number,
  event: ReceivedEvent,
  mode: EventMetadataMode,
  withUid: boolean,
): void {
  const records = state.records;
  for (let i = mark; i < records.length; i++)
    (records[i] as DecodedLogRecord).eventSequenceNumber = event.sequenceNumber;
  if (mode === 'none' && !withUid) return;
  const enqueuedMs = enqueuedMsOf(event, state.observedMs);
  addEventMetadata(records, mark, event, state.context, enqueuedMs, mode);
  if (!withUid) return;
  for (let i = mark; i < records.length; i++) {
    const attributes = records[i]!.attributes;
    // The Go extension maps a Function App log's activityId (an invocation's, shared by its lines) to this name;
    // asked for ids to de-duplicate on, ours take the name and that value is kept beside it.
    const own = attributes[ATTR_LOG_RECORD_UID];
    if (own !== undefined) attributes[`azure.record.${ATTR_LOG_RECORD_UID}`] = own;
    attributes[ATTR_LOG_RECORD_UID] = recordUid(state.context, event.sequenceNumber, enqueuedMs, i - mark);
  }
}

function compileTimeFormats(layouts: readonly string[] | undefined) {
  return (layouts ?? []).map((layout, index) => {
    try {
      return compileTimeLayout(layout);
    } catch (error) {
      throw new Error(`timeFormats[${index}]: ${(error as Error).message}`, { cause: error });
    }
  });
}

function lastResortRecord(
  state: BatchState,
  event: ReceivedEvent,
  resources: ResourceCache,
  error: unknown,
): ReadableLogRecord {
  const message = error instanceof Error ? error.message : String(error);
  try {
    const text = event?.body instanceof Uint8Array ? eventText(event.body) : undefined;
    return rawErrorRecord(
      state,
      event,
      text,
      enqueuedMsOf(event, state.observedMs),
      resources.empty,
      ERROR_DECODER,
      message,
    );
  } catch {
    return makeRecord(
      state.observed,
      state.observed,
      undefined,
      { 'error.type': ERROR_DECODER, 'error.message': message },
      resources.empty,
    );
  }
}
