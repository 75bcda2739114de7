// The `otlp` (gRPC) exporter's config section (otlp-grpc-exporter.ts is the exporter): what `validate` needs.
import { z } from 'zod';
import { DEFAULT_GRPC_MAX_REQUEST_BYTES, maxRequestBytesSchema, otlpCommonShape } from './internal/otlp-config.ts';

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
