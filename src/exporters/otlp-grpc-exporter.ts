import { checkServerIdentity } from 'node:tls';
import { z } from 'zod';
import { CompressionAlgorithm, OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { LogsExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ExporterFactory, CreateSettings } from '../component/factory.ts';
import type { LogsConsumer } from '../pipeline/consumer.ts';
import { fromLogRecordExporter } from '../pipeline/exporter-adapter.ts';
import { withRetry, retryOptionsFromConfig } from '../pipeline/retry.ts';
import { otlpCommonShape, readTlsFiles, sendingQueueWarnings } from './internal/otlp-common.ts';
import { OtlpProtoLogsSerializer } from './internal/otlp-proto-encoder.ts';

/** The component type @opentelemetry/exporter-logs-otlp-grpc reports in its self-observability metrics. */
const OTLP_GRPC_LOG_EXPORTER_COMPONENT = 'otlp_grpc_log_exporter';
/** The OTLP logs service, as `@opentelemetry/exporter-logs-otlp-grpc` names it (opentelemetry-proto). */
const LOGS_SERVICE_NAME = 'LogsExportService';
const LOGS_EXPORT_PATH = '/opentelemetry.proto.collector.logs.v1.LogsService/Export';

/** Extra time the adapter waits beyond `timeout` for the OTLP library's callback. 5 000 ms. */
const CALLBACK_GRACE_MS = 5_000;

/** The `otlp` (gRPC) exporter's section (the collector's keys). */
export const otlpGrpcExporterConfigSchema = z.strictObject({
  /** `host:port` of the OTLP/gRPC server (a leading `http://` or `https://` is accepted). Required. */
  endpoint: z.string().min(1, 'required: host:port of the OTLP/gRPC server'),
  ...otlpCommonShape,
});

export type OtlpGrpcExporterConfig = z.output<typeof otlpGrpcExporterConfigSchema>;

/**
 * OTLP over gRPC: `@opentelemetry/exporter-logs-otlp-grpc`'s exporter rebuilt from its public parts with the
 * one-pass protobuf encoder as serializer, and `@grpc/grpc-js` for credentials and metadata, wrapped as a LogsConsumer with `retry_on_failure`. gRPC statuses CANCELLED,
 * DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, OUT_OF_RANGE, UNAVAILABLE, DATA_LOSS are retried; any
 * other status is permanent. TLS unless `tls.insecure`.
 */
export async function createOtlpGrpcExporter(config: OtlpGrpcExporterConfig, settings?: CreateSettings): Promise<LogsConsumer> {
  const path = settings?.id ? `exporters.${settings.id}` : 'otlp';
  // Loaded on use, so configs without a gRPC exporter never load gRPC.
  const [grpc, grpcBase] = await Promise.all([import('@grpc/grpc-js'), import('@opentelemetry/otlp-grpc-exporter-base')]);
  const hostPort = config.endpoint.replace(/^https?:\/\//, '').replace(/\/+$/, '');
  let credentials;
  if (config.tls.insecure) {
    credentials = grpc.credentials.createInsecure();
  } else {
    const { ca, cert, key } = await readTlsFiles(config.tls, path);
    const override = config.tls.server_name_override;
    credentials = grpc.credentials.createSsl(ca ?? null, key ?? null, cert ?? null, {
      rejectUnauthorized: !config.tls.insecure_skip_verify,
      ...(override ? { checkServerIdentity: (_host: string, peer: Parameters<typeof checkServerIdentity>[1]) => checkServerIdentity(override, peer) } : {}),
    });
  }
  const metadata = new grpc.Metadata();
  for (const [k, v] of Object.entries(config.headers)) metadata.set(k, v);
  // What `@opentelemetry/exporter-logs-otlp-grpc`'s OTLPLogExporter is (0.223.1), from the same public parts
  // of otlp-grpc-exporter-base, with the one-pass encoder as the serializer (the same bytes, less CPU).
  const options = grpcBase.convertLegacyOtlpGrpcOptions({
    url: `${config.tls.insecure ? 'http' : 'https'}://${hostPort}`,
    credentials,
    metadata,
    compression: config.compression === 'gzip' ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE,
    timeoutMillis: config.timeout,
  }, 'LOGS');
  const delegate = grpcBase.createOtlpGrpcExportDelegate(options, OtlpProtoLogsSerializer, OTLP_GRPC_LOG_EXPORTER_COMPONENT,
    LogsExporterMetricsHelper, undefined, LOGS_SERVICE_NAME, LOGS_EXPORT_PATH);
  const exporter = new OTLPExporterBase<ReadableLogRecord[]>(delegate);
  const consumer = fromLogRecordExporter(exporter, { timeoutMs: config.timeout + CALLBACK_GRACE_MS, name: settings?.id ?? 'otlp' });
  return withRetry(consumer, retryOptionsFromConfig(config.retry_on_failure, { logger: settings?.logger }));
}

export const otlpGrpcExporterFactory: ExporterFactory<OtlpGrpcExporterConfig> = {
  type: 'otlp',
  stability: 'beta',
  configSchema: otlpGrpcExporterConfigSchema,
  createDefaultConfig: () => otlpGrpcExporterConfigSchema.parse({ endpoint: 'localhost:4317' }),
  configWarnings: sendingQueueWarnings,
  create: (settings, config) => createOtlpGrpcExporter(config, settings),
};
