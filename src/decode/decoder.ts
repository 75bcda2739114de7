import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ReceivedEvent } from '../backends/consumer.ts';
import type { MetricPoint, Signal, SpanRecord } from '../pipeline/signals.ts';

/** The event formats the receiver understands. */
export type Format = 'azure' | 'raw' | 'json' | 'azure_encoding';

/** Where the events come from: the Event Hubs metadata (when `eventMetadata` asks for it) and `log.record.uid`. */
export interface DecodeContext {
  readonly namespace: string;
  readonly eventHubName: string;
  readonly consumerGroup: string;
  readonly partitionId: string;
}

export interface DecoderOptions {
  readonly format: Format;
  /** `azure` format: OpenTelemetry semantic-convention names instead of the Go receiver's. Default false. */
  readonly applySemanticConventions?: boolean;
  /** Extra timestamp layouts tried before the built-in ones (Go reference-time layouts or strftime-like). */
  readonly timeFormats?: readonly string[];
  /**
   * The signals the receiver feeds (its pipelines' types). Default logs only. With `metrics`, records of
   * Azure metrics (`metricName`) become metric points; with `traces`, Application Insights requests and
   * dependencies become spans; everything else, and those too when their signal is not fed, stays a log
   * record. Only the `azure` format produces metrics and traces.
   */
  readonly signals?: ReadonlySet<Signal>;
  /** `azure` metrics: `average` gives one gauge per record (the average); default one per aggregation. */
  readonly metricAggregation?: '' | 'average';
  /** `azure` metrics: timestamp layouts (`time_formats.metrics`). */
  readonly metricTimeFormats?: readonly string[];
  /** `azure` traces: timestamp layouts (`time_formats.traces`). */
  readonly traceTimeFormats?: readonly string[];
  /** `azure_encoding` format: decode only these categories (the extension's `include_categories`). Default all. */
  readonly includeCategories?: readonly string[];
  /**
   * `azure_encoding` format: drop these categories (`exclude_categories`); wins over includeCategories. Default none.
   */
  readonly excludeCategories?: readonly string[];
  /** Regex sanitizers applied, in order, only when an event's JSON does not parse. */
  readonly sanitizers?: readonly { readonly pattern: string; readonly replacement: string }[];
  /**
   * Built-in repairs tried, in this order, before the regex sanitizers when an event's JSON does not parse:
   * `new_lines` escapes raw control characters inside strings; `single_quotes` rewrites the single-quoted
   * JSON that Azure Functions emits. Default both.
   */
  readonly builtinSanitizers?: readonly BuiltinSanitizer[];
  /** Events longer than this many characters are not sanitized (a failed parse goes raw). Default 4 MiB (4_194_304). */
  readonly maxSanitizeChars?: number;
  /** Deepest nesting of maps/arrays kept in a record; a deeper event is exported raw. Default 64 levels. */
  readonly maxNestingDepth?: number;
  /**
   * Event Hubs metadata on each log record: `none`; `eventhubs` (every value under `azure.eventhubs.*`, names no
   * Azure log uses); `messaging` (OpenTelemetry's messaging names: `messaging.*`, `server.address`, with
   * `azure.eventhubs.message.*`; a name the content already uses keeps the content's value and the metadata goes
   * under its `azure.eventhubs.*` name). `true` means `eventhubs`, `false` `none`. Default `none` for `azure` and
   * `azure_encoding` (the Go receiver writes none), `messaging` for `raw` and `json`.
   */
  readonly eventMetadata?: EventMetadataMode | boolean;
  /**
   * Gives each log record a `log.record.uid`: a ULID made from the namespace, hub, partition, sequence number and
   * the record's index among its event's log records (the time part is the enqueued time), the same every time
   * the event is read. Default false.
   */
  readonly recordUid?: boolean;
  /** Clock for the observed time, in ms since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

/** Which Event Hubs metadata a decoder writes on log records (DecoderOptions.eventMetadata). */
export type EventMetadataMode = 'none' | 'eventhubs' | 'messaging';

/** Repairs for malformed JSON that the `azure` and `json` formats can apply. */
export type BuiltinSanitizer = 'new_lines' | 'single_quotes';

/** Counts from one decode call, for self-telemetry. */
export interface DecodeStats {
  /** Events whose body could not be decoded in the configured format (exported raw with `error.type`). */
  readonly failedEvents: number;
  /** Events decoded only after a sanitizer repaired them. */
  readonly sanitizedEvents: number;
  /** Records whose timestamp did not parse and fell back to the enqueued time. */
  readonly timestampFallbacks: number;
  /**
   * Records of another signal (e.g. an Application Insights request with an invalid trace id) that could
   * not be decoded as such: kept as log records with `error.type` (e.g. `invalid_trace_record`). Absent when none.
   */
  readonly refusedRecords?: number;
}

export interface DecodeResult {
  readonly records: ReadableLogRecord[];
  /** Metric points, when the decoder feeds metrics. */
  readonly metrics?: MetricPoint[];
  /** Spans, when the decoder feeds traces. */
  readonly spans?: SpanRecord[];
  readonly stats: DecodeStats;
}

/** A decoder is a pure function of events to log records (and metric points and spans). It never throws. */
export type Decoder = (events: readonly ReceivedEvent[], context: DecodeContext) => DecodeResult;
