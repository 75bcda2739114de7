import type { HrTime } from '@opentelemetry/api';
import type { AnyValueMap } from '@opentelemetry/api-logs';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';

/**
 * The three OpenTelemetry signals. One receiver reads each partition once, whatever signals it feeds:
 * every decoded item goes to the pipelines of its signal (see docs/signals.md).
 */
export type Signal = 'logs' | 'metrics' | 'traces';

export const SIGNALS: readonly Signal[] = ['logs', 'metrics', 'traces'];

/**
 * One metric data point with the identity of its metric, as decoded from one Azure metric record (a
 * record of the `AllMetrics` diagnostic category becomes one point per aggregation, or one when
 * `metric_aggregation: average`). Points are kept flat through the pipeline; an exporter groups them by
 * resource, scope and metric (name, unit, kind) when it encodes a request. The resource and scope objects
 * are shared between points of the same resource, as they are between log records.
 */
export interface MetricPoint {
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
  /** The metric's name, e.g. `azure_requests_total` in the Go receiver's layout. */
  readonly name: string;
  readonly unit: string;
  readonly description: string;
  /** Only gauges today (what the Go receiver produces from Azure metrics); sums would be added here. */
  readonly kind: 'gauge';
  /**
   * Start of the aggregation interval, if known (Azure metrics: `time` minus `timeGrain`, as the Go receiver sets it).
   */
  readonly startTime?: HrTime;
  /** The point's time (Azure metrics: the record's `time`). */
  readonly time: HrTime;
  /** The value, as a double (OTLP `as_double`). */
  readonly value: number;
  readonly attributes: AnyValueMap;
}

/** OTLP `Span.SpanKind`: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
export type SpanKindNumber = 0 | 1 | 2 | 3 | 4 | 5;
/** OTLP `Status.StatusCode`: 0 unset, 1 ok, 2 error. */
export type StatusCodeNumber = 0 | 1 | 2;

export interface SpanEventRecord {
  readonly time: HrTime;
  readonly name: string;
  readonly attributes: AnyValueMap;
}

export interface SpanLinkRecord {
  /** 32 lowercase hex characters. */
  readonly traceId: string;
  /** 16 lowercase hex characters. */
  readonly spanId: string;
  readonly traceState?: string;
  readonly attributes: AnyValueMap;
}

/**
 * One span, as decoded from one Application Insights record (`AppRequests` → server span,
 * `AppDependencies` → client span). Identifiers are lowercase hex strings as on OTLP/JSON; an exporter
 * writes them as bytes on protobuf.
 */
export interface SpanRecord {
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
  /** 32 lowercase hex characters. */
  readonly traceId: string;
  /** 16 lowercase hex characters. */
  readonly spanId: string;
  /** 16 lowercase hex characters, or empty for a root span. */
  readonly parentSpanId: string;
  readonly traceState?: string;
  readonly name: string;
  readonly kind: SpanKindNumber;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly attributes: AnyValueMap;
  readonly status: { readonly code: StatusCodeNumber; readonly message?: string };
  readonly events?: readonly SpanEventRecord[];
  readonly links?: readonly SpanLinkRecord[];
}

/**
 * The event each metric point and span was decoded from, by the item object itself. Items must not carry the
 * event's sequence number as an attribute (it would change what the Go receiver's layout exports), so the
 * decoder notes it here, and a refused item can still be dead-lettered as its own event. Weak: an item that is
 * gone leaves nothing behind. Log records carry it in a field of their own instead (a WeakMap entry per record
 * measured 8 % of decode time): see `eventSequenceNumber`.
 */
const eventOfItem = new WeakMap<object, number>();

/** Notes that `item` (a metric point or span) was decoded from the event with this sequence number. */
export function noteItemEvent(item: object, sequenceNumber: number): void {
  eventOfItem.set(item, sequenceNumber);
}

/** The sequence number of the event `item` was decoded from, when the decoder noted it. */
export function itemEventSequenceNumber(item: object): number | undefined {
  return eventOfItem.get(item) ?? (item as { eventSequenceNumber?: number }).eventSequenceNumber;
}
