// The exporter factories the CLI knows. Each holds its config schema and defaults; the exporter itself (the
// OpenTelemetry exporter and transformer packages, the encoders) loads when one is created, so `validate`
// and a config that fails to load never pay for it.
import type { ExporterFactory } from '../pipeline/factory.ts';
import { SIGNALS } from '../pipeline/signals.ts';
import { debugExporterFactory } from './debug-exporter.ts';
import { fileExporterConfigSchema, type FileExporterConfig } from './file-exporter-config.ts';
import { otlpGrpcExporterConfigSchema, type OtlpGrpcExporterConfig } from './otlp-grpc-exporter-config.ts';
import { otlpHttpExporterConfigSchema, type OtlpHttpExporterConfig } from './otlp-http-exporter-config.ts';
import { sendingQueueWarnings } from './internal/otlp-config.ts';

export const fileExporterFactory: ExporterFactory<FileExporterConfig> = {
  type: 'file',
  stability: 'alpha',
  signals: SIGNALS,
  configSchema: fileExporterConfigSchema,
  createDefaultConfig: () => ({ path: '', format: 'json', sync: true }),
  create: async (_settings, config) => (await import('./file-exporter.ts')).createFileExporter(config),
};

export const otlpHttpExporterFactory: ExporterFactory<OtlpHttpExporterConfig> = {
  type: 'otlphttp',
  stability: 'beta',
  signals: SIGNALS,
  configSchema: otlpHttpExporterConfigSchema,
  createDefaultConfig: () => otlpHttpExporterConfigSchema.parse({ endpoint: 'http://localhost:4318' }),
  configWarnings: (config) => [
    ...sendingQueueWarnings(config),
    // As in the collector, the scheme decides; `insecure` next to an https:// endpoint suggests plaintext was meant.
    ...(config.tls.insecure &&
    [config.endpoint, config.logs_endpoint, config.metrics_endpoint, config.traces_endpoint].some((e) =>
      e?.startsWith('https://'),
    )
      ? ['tls.insecure: no effect; an https:// endpoint is always TLS (write http:// for plaintext)']
      : []),
  ],
  create: async (settings, config) =>
    (await import('./otlp-http-exporter.ts')).createOtlpHttpExporter(config, settings),
};

export const otlpGrpcExporterFactory: ExporterFactory<OtlpGrpcExporterConfig> = {
  type: 'otlp',
  stability: 'beta',
  signals: SIGNALS,
  configSchema: otlpGrpcExporterConfigSchema,
  createDefaultConfig: () => otlpGrpcExporterConfigSchema.parse({ endpoint: 'localhost:4317' }),
  configWarnings: sendingQueueWarnings,
  create: async (settings, config) =>
    (await import('./otlp-grpc-exporter.ts')).createOtlpGrpcExporter(config, settings),
};

/** Every exporter the CLI knows, by YAML type: `debug`, `file`, `otlphttp`, `otlp` (gRPC). */
export const builtinExporterFactories: ExporterFactory[] = [
  debugExporterFactory,
  fileExporterFactory,
  otlpHttpExporterFactory,
  otlpGrpcExporterFactory,
];
