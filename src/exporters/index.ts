import type { ExporterFactory } from '../pipeline/factory.ts';
import { debugExporterFactory } from './debug-exporter.ts';
import { fileExporterFactory } from './file-exporter.ts';
import { otlpHttpExporterFactory } from './otlp-http-exporter.ts';
import { otlpGrpcExporterFactory } from './otlp-grpc-exporter.ts';

export {
  createDebugExporter,
  createDebugExporterFactory,
  debugExporterFactory,
  debugExporterConfigSchema,
  type DebugExporterConfig,
} from './debug-exporter.ts';
export {
  createFileExporter,
  fileExporterFactory,
  fileExporterConfigSchema,
  type FileExporterConfig,
} from './file-exporter.ts';
export {
  createOtlpHttpExporter,
  otlpHttpExporterFactory,
  otlpHttpExporterConfigSchema,
  type OtlpHttpExporterConfig,
} from './otlp-http-exporter.ts';
export {
  createOtlpGrpcExporter,
  otlpGrpcExporterFactory,
  otlpGrpcExporterConfigSchema,
  type OtlpGrpcExporterConfig,
} from './otlp-grpc-exporter.ts';

/** Every exporter the CLI knows, by YAML type: `debug`, `file`, `otlphttp`, `otlp` (gRPC). */
export const builtinExporterFactories: ExporterFactory[] = [
  debugExporterFactory,
  fileExporterFactory,
  otlpHttpExporterFactory,
  otlpGrpcExporterFactory,
];
