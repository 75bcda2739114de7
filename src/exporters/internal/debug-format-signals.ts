import type { HrTime } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { MetricPoint, SpanRecord } from '../../pipeline/signals.ts';
import { groupByMetric, groupByResourceAndScope } from './group-items.ts';
import { attributes, cut, plain, timestamp } from './debug-format.ts';
import type { Scope } from './otlp-proto-values.ts';
import { wireTime } from './otlp-wire-values.ts';

/*
 * Text renderings of a batch's metric points and spans for the debug exporter, in the layout of the
 * collector's debug exporter for metrics and traces (basic: one summary line per signal; normal: one line
 * per point or span; detailed: every field), and one compact line per item for `npm start`.
 */

const SPAN_KINDS = ['Unspecified', 'Internal', 'Server', 'Client', 'Producer', 'Consumer'];
const STATUS_CODES = ['Unset', 'Ok', 'Error'];

/** `Metrics {"resource metrics": 1, "metrics": 2, "data points": 4, "partition": "0"}` */
export function formatMetricsBasic(points: readonly MetricPoint[], partitionId: string): string {
  const groups = groupByResourceAndScope(points);
  let metrics = 0;
  for (const scopes of groups.values()) {
    for (const list of scopes.values()) metrics += groupByMetric(list).length;
  }
  const summary = { 'resource metrics': groups.size, metrics, 'data points': points.length, partition: partitionId };
  return `Metrics\t${JSON.stringify(summary)}\n`;
}

/** One line per point: `name{key=value,...} value`. */
export function formatMetricsNormal(points: readonly MetricPoint[], partitionId: string): string {
  let out = formatMetricsBasic(points, partitionId);
  for (const p of points) {
    const attrs = Object.entries(p.attributes)
      .map(([k, v]) => `${k}=${plain(v)}`)
      .join(',');
    out += `${p.name}{${attrs}} ${p.value}\n`;
  }
  return out;
}

/** Resource, scope, each metric's descriptor and every data point with typed attribute values. */
export function formatMetricsDetailed(points: readonly MetricPoint[], partitionId: string): string {
  let out = formatMetricsBasic(points, partitionId);
  let ri = 0;
  for (const [resource, scopes] of groupByResourceAndScope(points)) {
    out += resourceHeader('ResourceMetrics', ri++, resource);
    let si = 0;
    for (const [scope, list] of scopes) {
      out += scopeHeader('ScopeMetrics', si++, scope);
      groupByMetric(list).forEach((metric, mi) => {
        const first = metric[0]!;
        out +=
          `Metric #${mi}\nDescriptor:\n     -> Name: ${first.name}\n     -> Description: ${first.description}\n` +
          `     -> Unit: ${first.unit}\n     -> DataType: Gauge\n`;
        metric.forEach((p, pi) => {
          out +=
            `NumberDataPoints #${pi}\nData point attributes:\n${attributes(p.attributes)}` +
            `StartTimestamp: ${p.startTime ? timestamp(p.startTime) : timestamp([0, 0])}\n` +
            `Timestamp: ${timestamp(p.time)}\nValue: ${p.value}\n`;
        });
      });
    }
  }
  return out;
}

/** `Traces {"resource spans": 1, "spans": 3, "partition": "0"}` */
export function formatTracesBasic(spans: readonly SpanRecord[], partitionId: string): string {
  const resources = groupByResourceAndScope(spans).size;
  const summary = { 'resource spans': resources, spans: spans.length, partition: partitionId };
  return `Traces\t${JSON.stringify(summary)}\n`;
}

/** One line per span: `name trace-id span-id key=value ...`. */
export function formatTracesNormal(spans: readonly SpanRecord[], partitionId: string): string {
  let out = formatTracesBasic(spans, partitionId);
  for (const s of spans) {
    const attrs = Object.entries(s.attributes).map(([k, v]) => `${k}=${plain(v)}`);
    out += `${s.name} ${s.traceId} ${s.spanId}${attrs.length ? ` ${attrs.join(' ')}` : ''}\n`;
  }
  return out;
}

/** Resource, scope and every span field, events and links included. */
export function formatTracesDetailed(spans: readonly SpanRecord[], partitionId: string): string {
  let out = formatTracesBasic(spans, partitionId);
  let ri = 0;
  for (const [resource, scopes] of groupByResourceAndScope(spans)) {
    out += resourceHeader('ResourceSpans', ri++, resource);
    let si = 0;
    for (const [scope, list] of scopes) {
      out += scopeHeader('ScopeSpans', si++, scope);
      list.forEach((s, i) => {
        out +=
          `Span #${i}\n` +
          `    Trace ID       : ${s.traceId}\n` +
          `    Parent ID      : ${s.parentSpanId}\n` +
          `    ID             : ${s.spanId}\n` +
          `    Name           : ${s.name}\n` +
          `    Kind           : ${SPAN_KINDS[s.kind] ?? 'Unspecified'}\n` +
          `    Start time     : ${timestamp(s.startTime)}\n` +
          `    End time       : ${timestamp(s.endTime)}\n` +
          `    Status code    : ${STATUS_CODES[s.status.code] ?? 'Unset'}\n` +
          `    Status message : ${s.status.message ?? ''}\n` +
          `Attributes:\n${attributes(s.attributes)}`;
        (s.events ?? []).forEach((e, ei) => {
          out +=
            `SpanEvent #${ei}\n     -> Name: ${e.name}\n     -> Timestamp: ${timestamp(e.time)}\n` +
            `     -> DroppedAttributesCount: 0\n${nestedAttributes(e.attributes)}`;
        });
        (s.links ?? []).forEach((l, li) => {
          out +=
            `SpanLink #${li}\n     -> Trace ID: ${l.traceId}\n     -> ID: ${l.spanId}\n` +
            `     -> TraceState: ${l.traceState ?? ''}\n     -> DroppedAttributesCount: ` +
            `0\n${nestedAttributes(l.attributes)}`;
        });
      });
    }
  }
  return out;
}

/** One line per point, as formatCompact writes records: `time METRIC name{attrs} value`, cut to `width`. */
export function formatMetricsCompact(points: readonly MetricPoint[], width: number): string {
  let out = '';
  for (const p of points) {
    const attrs = Object.entries(p.attributes)
      .map(([k, v]) => `${k}=${plain(v)}`)
      .join(',');
    const labels = attrs ? ` {${attrs}}` : '';
    out += `${cut(`${clock(p.time)} METRIC ${p.name.padEnd(24)} ${p.value}${labels}`, width)}\n`;
  }
  return out;
}

/** One line per span: `time SPAN  name kind duration status`, cut to `width`. */
export function formatTracesCompact(spans: readonly SpanRecord[], width: number): string {
  let out = '';
  for (const s of spans) {
    const [s0, n0] = wireTime(s.startTime);
    const [s1, n1] = wireTime(s.endTime);
    const ms = (s1 - s0) * 1000 + (n1 - n0) / 1e6;
    const status = STATUS_CODES[s.status.code] ?? 'Unset';
    const kind = (SPAN_KINDS[s.kind] ?? 'Unspecified').toLowerCase();
    const message = s.status.message ? ` ${s.status.message}` : '';
    const line = `${clock(s.startTime)} SPAN   ${s.name.padEnd(24)} ${kind} ${ms.toFixed(1)} ms ${status}${message}`;
    out += `${cut(line, width)}\n`;
  }
  return out;
}

/** hh:mm:ss.mmm of a time, as formatCompact writes it. */
function clock(time: HrTime): string {
  const ms = time[0] * 1000 + Math.floor(time[1] / 1e6);
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(11, 23) : '??:??:??.???';
}

function resourceHeader(kind: string, index: number, resource: Resource): string {
  return (
    `${kind} #${index}\nResource SchemaURL: ${resource.schemaUrl ?? ''}\nResource ` +
    `attributes:\n${attributes(resource.attributes)}`
  );
}

function scopeHeader(kind: string, index: number, scope: Scope): string {
  return (
    `${kind} #${index}\n${kind} SchemaURL: ${scope.schemaUrl ?? ''}\nInstrumentationScope ${scope.name} ` +
    `${scope.version ?? ''}\n`
  );
}

/** An event's or link's attributes, under the collector's `-> Attributes::` line; nothing when there are none. */
function nestedAttributes(attrs: Readonly<Record<string, unknown>>): string {
  return Object.keys(attrs).length > 0 ? `     -> Attributes::\n${attributes(attrs)}` : '';
}
