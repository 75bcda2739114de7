/**
 * Strict OTLP/JSON encoding of a metrics export request (ExportMetricsServiceRequest) from flat metric
 * points: the same grouping and content as the protobuf encoder (otlp-proto-metrics-encoder.ts), written by
 * the rules of otlp-json-encoder.ts (times as decimal strings, doubles as numbers or "NaN"/"Infinity").
 */
import {
  JsonMetricsSerializer,
  type IExportMetricsServiceResponse,
  type ISerializer,
} from '@opentelemetry/otlp-transformer';
import type { MetricPoint } from '../../pipeline/signals.ts';
import { groupByMetric, groupByResourceAndScope } from './group-items.ts';
import { attributesJson, doubleJson, optionalString, resourceJson, scopeJson } from './otlp-json-values.ts';
import { unixNanosString, wellFormed } from './otlp-wire-values.ts';

/** The ExportMetricsServiceRequest for `points` as UTF-8 JSON bytes. */
export function encodeMetricsRequestJson(points: readonly MetricPoint[]): Uint8Array {
  const resourceMetrics = [];
  for (const [resource, scopes] of groupByResourceAndScope(points)) {
    const scopeMetrics = [];
    for (const [scope, list] of scopes) {
      const metrics = groupByMetric(list).map(metricJson);
      scopeMetrics.push({ scope: scopeJson(scope), metrics, schemaUrl: optionalString(scope.schemaUrl) });
    }
    const schemaUrl = optionalString(resource.schemaUrl);
    resourceMetrics.push({ resource: resourceJson(resource), scopeMetrics, schemaUrl });
  }
  return Buffer.from(JSON.stringify({ resourceMetrics }), 'utf8');
}

/** `JsonMetricsSerializer` with the request side replaced by `encodeMetricsRequestJson`. */
export const OtlpJsonMetricsSerializer: ISerializer<readonly MetricPoint[], IExportMetricsServiceResponse> = {
  serializeRequest: (points) => encodeMetricsRequestJson(points),
  deserializeResponse: (data) => JsonMetricsSerializer.deserializeResponse(data),
};

function metricJson(points: readonly MetricPoint[]): object {
  const first = points[0]!;
  return {
    name: wellFormed(first.name),
    description: optionalString(first.description),
    unit: optionalString(first.unit),
    gauge: {
      dataPoints: points.map((p) => ({
        attributes: attributesJson(p.attributes),
        startTimeUnixNano: p.startTime === undefined ? undefined : unixNanosString(p.startTime),
        timeUnixNano: unixNanosString(p.time),
        asDouble: doubleJson(p.value),
      })),
    },
  };
}
