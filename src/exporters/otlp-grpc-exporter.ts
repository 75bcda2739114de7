import { checkServerIdentity } from 'node:tls';
import { z } from 'zod';
import { CompressionAlgorithm, OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { LogsExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ExporterFactory, CreateSettings } from '../component/factory.ts';
import type { LogsConsumer } from '../pipeline/consumer.ts';
import { fromLogRecordExporter } from '../pipeline/exporter-adapter.ts';
import { withRetry, retryOptionsFromConfig } from '../pipeline/retry.ts';
import { DEFAULT_GRPC_MAX_REQUEST_BYTES, maxRequestBytesSchema, otlpCommonShape, readTlsFiles, sendingQueueWarnings } from './internal/otlp-common.ts';
import { measuredSerializer } from './internal/measured-serializer.ts';
import { limitRequestBytes } from '../pipeline/request-bytes-limit.ts';
import { OtlpProtoLogsSerializer } from './internal/otlp-proto-encoder.ts';
import { GRPC_JS_VERSION_WRITTEN_FOR, trimGrpcAcceptEncoding } from './internal/grpc-js-accept-encoding.ts';

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
  /**
   * Largest request message, in bytes of serialized protobuf (before compression, as gRPC servers count);
   * larger batches are split, a larger record is refused. 0: no bound. Default 4 MiB − 64 KiB (4 128 768).
   */
  max_request_bytes: maxRequestBytesSchema(DEFAULT_GRPC_MAX_REQUEST_BYTES),
});

export type OtlpGrpcExporterConfig = z.output<typeof otlpGrpcExporterConfigSchema>;

/**
 * OTLP over gRPC: `@opentelemetry/exporter-logs-otlp-grpc`'s exporter rebuilt from its public parts with the
 * one-pass protobuf encoder as serializer, and `@grpc/grpc-js` for credentials and metadata, wrapped as a LogsConsumer with `retry_on_failure`. gRPC statuses CANCELLED,
 * DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED with RetryInfo, ABORTED, OUT_OF_RANGE, UNAVAILABLE, DATA_LOSS are
 * retried; RESOURCE_EXHAUSTED without RetryInfo splits the request (src/pipeline/request-bytes-limit.ts,
 * which also keeps every request below `max_request_bytes`); any other status is permanent. TLS unless
 * `tls.insecure`.
 */
export async function createOtlpGrpcExporter(config: OtlpGrpcExporterConfig, settings?: CreateSettings): Promise<LogsConsumer> {
  const path = settings?.id ? `exporters.${settings.id}` : 'otlp';
  // Loaded on use, so configs without a gRPC exporter never load gRPC.
  const [grpc, grpcBase] = await Promise.all([import('@grpc/grpc-js'), import('@opentelemetry/otlp-grpc-exporter-base')]);
  // gzip must stay on against grpcio servers, which list their encodings with spaces (see the file).
  if (config.compression === 'gzip' && trimGrpcAcceptEncoding() === 'unknown-shape') {
    settings?.logger?.warn('cannot keep gzip on against grpcio servers (@grpc/grpc-js internals changed): '
      + 'a server listing "identity, deflate, gzip" may receive uncompressed calls', { written_for: GRPC_JS_VERSION_WRITTEN_FOR });
  }
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
  // Measured requests are sent as measured: the size bound costs no second encoding.
  const serializer = measuredSerializer(OtlpProtoLogsSerializer);
  const delegate = grpcBase.createOtlpGrpcExportDelegate(options, serializer, OTLP_GRPC_LOG_EXPORTER_COMPONENT,
    LogsExporterMetricsHelper, undefined, LOGS_SERVICE_NAME, LOGS_EXPORT_PATH);
  const exporter = new OTLPExporterBase<ReadableLogRecord[]>(delegate);
  const name = settings?.id ?? 'otlp';
  const consumer = fromLogRecordExporter(exporter, { timeoutMs: config.timeout + CALLBACK_GRACE_MS, name });
  const retrying = withRetry(consumer, retryOptionsFromConfig(config.retry_on_failure, { logger: settings?.logger }));
  return limitRequestBytes(retrying, { maxBytes: config.max_request_bytes, measure: serializer.measure, name, logger: settings?.logger });
}

export const otlpGrpcExporterFactory: ExporterFactory<OtlpGrpcExporterConfig> = {
  type: 'otlp',
  stability: 'beta',
  configSchema: otlpGrpcExporterConfigSchema,
  createDefaultConfig: () => otlpGrpcExporterConfigSchema.parse({ endpoint: 'localhost:4317' }),
  configWarnings: sendingQueueWarnings,
  create: (settings, config) => createOtlpGrpcExporter(config, settings),
};
