export {
  createDebugExporter,
  createDebugExporterFactory,
  debugExporterFactory,
  debugExporterConfigSchema,
  type DebugExporterConfig,
} from './debug-exporter.ts';
export {
  createFileExporter,
  fileExporterConfigSchema,
  type FileExporterConfig,
} from './file-exporter.ts';
export {
  createOtlpHttpExporter,
  otlpHttpExporterConfigSchema,
  type OtlpHttpExporterConfig,
} from './otlp-http-exporter.ts';
export {
  createOtlpGrpcExporter,
  otlpGrpcExporterConfigSchema,
  type OtlpGrpcExporterConfig,
} from './otlp-grpc-exporter.ts';

export {
  builtinExporterFactories,
  fileExporterFactory,
  otlpGrpcExporterFactory,
  otlpHttpExporterFactory,
} from './factories.ts';
