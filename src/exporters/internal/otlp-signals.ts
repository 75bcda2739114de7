/**
 * What differs between the OTLP signals for the `otlphttp` and `otlp` exporters: the HTTP path, the
 * environment-variable signal name, the gRPC method, the request encoders and the library's item count.
 * Paths and methods are those of the OTLP specification (https://opentelemetry.io/docs/specs/otlp/) and
 * opentelemetry-proto v1.5.0's collector services.
 */
import type { IExporterMetricsHelper, ISerializer } from '@opentelemetry/otlp-transformer';
import type { SignalItem } from '../../pipeline/signal-items.ts';
import type { Signal } from '../../pipeline/signals.ts';
import { OtlpJsonLogsSerializer } from './otlp-json-encoder.ts';
import { OtlpJsonMetricsSerializer } from './otlp-json-metrics-encoder.ts';
import { OtlpJsonTraceSerializer } from './otlp-json-trace-encoder.ts';
import { OtlpProtoLogsSerializer } from './otlp-proto-encoder.ts';
import { OtlpProtoMetricsSerializer } from './otlp-proto-metrics-encoder.ts';
import { OtlpProtoTraceSerializer } from './otlp-proto-trace-encoder.ts';

export interface OtlpSignal<S extends Signal> {
  readonly signal: S;
  /** Appended to `endpoint` by `otlphttp`, e.g. `v1/logs`. */
  readonly httpPath: string;
  /** The signal's part of `OTEL_EXPORTER_OTLP_<X>_*` variables, which the library reads as fallbacks. */
  readonly envName: 'LOGS' | 'METRICS' | 'TRACES';
  /** The component type the OpenTelemetry JS exporter of this signal reports in its own metrics. */
  readonly httpComponent: string;
  readonly grpcComponent: string;
  /** The gRPC service name as the OpenTelemetry JS gRPC exporter of this signal names it. */
  readonly grpcServiceName: string;
  /** The gRPC method path of the collector service's Export. */
  readonly grpcPath: string;
  readonly helper: IExporterMetricsHelper<readonly SignalItem<S>[]>;
  readonly proto: ISerializer<readonly SignalItem<S>[], unknown>;
  readonly json: ISerializer<readonly SignalItem<S>[], unknown>;
}

/**
 * The library's item count for its own `otel.sdk.exporter.*` metrics: one per array element (log record,
 * metric point, span). Upstream's metrics helper counts points inside ResourceMetrics, which ours are not.
 */
function countEach<Item>(name: 'log' | 'metric_data_point' | 'span'): IExporterMetricsHelper<readonly Item[]> {
  return { name, countItems: (items) => items.length };
}

export const OTLP_SIGNALS: { readonly [S in Signal]: OtlpSignal<S> } = {
  logs: {
    signal: 'logs',
    httpPath: 'v1/logs',
    envName: 'LOGS',
    httpComponent: 'otlp_http_log_exporter',
    grpcComponent: 'otlp_grpc_log_exporter',
    grpcServiceName: 'LogsExportService',
    grpcPath: '/opentelemetry.proto.collector.logs.v1.LogsService/Export',
    helper: countEach('log'),
    proto: OtlpProtoLogsSerializer,
    json: OtlpJsonLogsSerializer,
  },
  metrics: {
    signal: 'metrics',
    httpPath: 'v1/metrics',
    envName: 'METRICS',
    httpComponent: 'otlp_http_metric_exporter',
    grpcComponent: 'otlp_grpc_metric_exporter',
    grpcServiceName: 'MetricsExportService',
    grpcPath: '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export',
    helper: countEach('metric_data_point'),
    proto: OtlpProtoMetricsSerializer,
    json: OtlpJsonMetricsSerializer,
  },
  traces: {
    signal: 'traces',
    httpPath: 'v1/traces',
    envName: 'TRACES',
    httpComponent: 'otlp_http_span_exporter',
    grpcComponent: 'otlp_grpc_span_exporter',
    grpcServiceName: 'TraceExportService',
    grpcPath: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
    helper: countEach('span'),
    proto: OtlpProtoTraceSerializer,
    json: OtlpJsonTraceSerializer,
  },
};
