/**
 * OTLP/protobuf encoding of a metrics export request (ExportMetricsServiceRequest) from flat metric points,
 * in one pass as the logs encoder (otlp-proto-encoder.ts): points are grouped by resource, scope and metric
 * (name, unit, description, kind), and each point becomes a NumberDataPoint with `as_double` in the metric's
 * `gauge`. Field numbers are those of opentelemetry-proto v1.5.0 (collector/metrics/v1/metrics_service.proto,
 * metrics/v1/metrics.proto); values follow otlp-wire-values.ts.
 */
import {
  ProtobufMetricsSerializer,
  type IExportMetricsServiceResponse,
  type ISerializer,
} from '@opentelemetry/otlp-transformer';
import type { MetricPoint } from '../../pipeline/signals.ts';
import { groupByMetric, groupByResourceAndScope } from './group-items.ts';
import { resourceField, scopeField, writeAttributes, writeHrTime } from './otlp-proto-values.ts';
import { ProtoWriter, varintSize } from './proto-writer.ts';

// Tags: field number << 3 | wire type (1 fixed64, 2 length-delimited).
const LEN_1 = 0x0a; // ExportMetricsServiceRequest.resource_metrics, Metric.name, Gauge.data_points
const LEN_2 = 0x12; // ResourceMetrics.scope_metrics, ScopeMetrics.metrics, Metric.description
const LEN_3 = 0x1a; // *.schema_url, Metric.unit
const METRIC_GAUGE = 0x2a; // Metric.gauge (5)
const POINT_START_TIME = 0x11; // NumberDataPoint.start_time_unix_nano (2, fixed64)
const POINT_TIME = 0x19; // NumberDataPoint.time_unix_nano (3, fixed64)
const POINT_AS_DOUBLE = 0x21; // NumberDataPoint.as_double (4, double)
const POINT_ATTRIBUTES = 7; // NumberDataPoint.attributes, written by writeAttributes(field)

/** Bytes per point, averaged over recent requests: sizes the buffer and guesses outer length prefixes. */
let bytesPerPoint = 256;

/** The ExportMetricsServiceRequest for `points`. */
export function encodeMetricsRequest(points: readonly MetricPoint[]): Buffer {
  const w = new ProtoWriter(points.length * bytesPerPoint + 1024);
  for (const [resource, scopes] of groupByResourceAndScope(points)) {
    let count = 0;
    for (const list of scopes.values()) count += list.length;
    const reserve = varintSize(count * bytesPerPoint);
    w.byte(LEN_1);
    const resourceMetrics = w.begin(reserve);
    w.raw(resourceField(resource));
    for (const [scope, list] of scopes) {
      w.byte(LEN_2);
      const scopeMetrics = w.begin(reserve);
      w.raw(scopeField(scope));
      for (const metric of groupByMetric(list)) writeMetric(w, metric);
      if (scope.schemaUrl) {
        w.byte(LEN_3);
        w.string(scope.schemaUrl);
      }
      w.end(scopeMetrics, reserve);
    }
    if (resource.schemaUrl) {
      w.byte(LEN_3);
      w.string(resource.schemaUrl);
    }
    w.end(resourceMetrics, reserve);
  }
  if (points.length > 0) bytesPerPoint = Math.max(32, Math.ceil((bytesPerPoint * 3 + w.pos / points.length) / 4));
  return w.finish();
}

/** `ProtobufMetricsSerializer` with the request side replaced by `encodeMetricsRequest`. */
export const OtlpProtoMetricsSerializer: ISerializer<readonly MetricPoint[], IExportMetricsServiceResponse> = {
  serializeRequest: (points) => encodeMetricsRequest(points),
  deserializeResponse: (data) => ProtobufMetricsSerializer.deserializeResponse(data),
};

/** One Metric (ScopeMetrics.metrics) holding the points of one identity in its gauge. */
function writeMetric(w: ProtoWriter, points: readonly MetricPoint[]): void {
  const first = points[0]!;
  const reserve = varintSize(points.length * bytesPerPoint);
  w.byte(LEN_2);
  const metric = w.begin(reserve);
  w.byte(LEN_1);
  w.string(first.name);
  if (first.description) {
    w.byte(LEN_2);
    w.string(first.description);
  }
  if (first.unit) {
    w.byte(LEN_3);
    w.string(first.unit);
  }
  w.byte(METRIC_GAUGE);
  const gauge = w.begin(reserve);
  for (const point of points) {
    w.byte(LEN_1);
    const start = w.begin(2);
    if (point.startTime !== undefined) {
      w.byte(POINT_START_TIME);
      writeHrTime(w, point.startTime);
    }
    w.byte(POINT_TIME);
    writeHrTime(w, point.time);
    w.byte(POINT_AS_DOUBLE);
    w.double(point.value);
    writeAttributes(w, point.attributes, POINT_ATTRIBUTES);
    w.end(start, 2);
  }
  w.end(gauge, reserve);
  w.end(metric, reserve);
}
