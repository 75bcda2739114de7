import { checkServerIdentity } from 'node:tls';
import { z } from 'zod';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import type { ExporterFactory, CreateSettings } from '../component/factory.ts';
import type { LogsConsumer } from '../pipeline/consumer.ts';
import { fromLogRecordExporter } from '../pipeline/exporter-adapter.ts';
import { withRetry, retryOptionsFromConfig } from '../pipeline/retry.ts';
import { otlpCommonShape, readTlsFiles } from './internal/otlp-common.ts';

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
 * OTLP over gRPC on `@opentelemetry/exporter-logs-otlp-grpc` (and `@grpc/grpc-js`, its dependency, for
 * credentials and metadata), wrapped as a LogsConsumer with `retry_on_failure`. gRPC statuses CANCELLED,
 * DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, OUT_OF_RANGE, UNAVAILABLE, DATA_LOSS are retried; any
 * other status is permanent. TLS unless `tls.insecure`.
 */
export async function createOtlpGrpcExporter(config: OtlpGrpcExporterConfig, settings?: CreateSettings): Promise<LogsConsumer> {
  const path = settings?.id ? `exporters.${settings.id}` : 'otlp';
  // Loaded on use, so configs without a gRPC exporter never load gRPC.
  const [grpc, { OTLPLogExporter }] = await Promise.all([import('@grpc/grpc-js'), import('@opentelemetry/exporter-logs-otlp-grpc')]);
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
  const exporter = new OTLPLogExporter({
    url: `${config.tls.insecure ? 'http' : 'https'}://${hostPort}`,
    credentials,
    metadata,
    compression: config.compression === 'gzip' ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE,
    timeoutMillis: config.timeout,
  });
  const consumer = fromLogRecordExporter(exporter, { timeoutMs: config.timeout + CALLBACK_GRACE_MS, name: settings?.id ?? 'otlp' });
  return withRetry(consumer, retryOptionsFromConfig(config.retry_on_failure, { logger: settings?.logger }));
}

export const otlpGrpcExporterFactory: ExporterFactory<OtlpGrpcExporterConfig> = {
  type: 'otlp',
  stability: 'beta',
  configSchema: otlpGrpcExporterConfigSchema,
  createDefaultConfig: () => otlpGrpcExporterConfigSchema.parse({ endpoint: 'localhost:4317' }),
  create: (settings, config) => createOtlpGrpcExporter(config, settings),
};
