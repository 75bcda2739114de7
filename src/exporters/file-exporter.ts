import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { ConfigError, PermanentError } from '../component/errors.ts';
import type { SignalConsumer } from '../pipeline/consumer.ts';
import { batchItemCount, type SignalBatch } from '../pipeline/signal-batch.ts';
import { encodeLogsRequestJson } from './internal/otlp-json-encoder.ts';
import { encodeMetricsRequestJson } from './internal/otlp-json-metrics-encoder.ts';
import { encodeTraceRequestJson } from './internal/otlp-json-trace-encoder.ts';
import { encodeLogsRequest } from './internal/otlp-proto-encoder.ts';
import { encodeMetricsRequest } from './internal/otlp-proto-metrics-encoder.ts';
import { encodeTraceRequest } from './internal/otlp-proto-trace-encoder.ts';
import { RotatingFileWriter } from './internal/rotating-file-writer.ts';
import type { FileExporterConfig } from './file-exporter-config.ts';

export {
  DEFAULT_ROTATION_MAX_BACKUPS,
  DEFAULT_ROTATION_MAX_MEGABYTES,
  fileExporterConfigSchema,
  type FileExporterConfig,
} from './file-exporter-config.ts';

/** One request encoded for the file: a JSON line, or length-prefixed protobuf. Throws on data it cannot encode. */
function frame(bytes: Uint8Array, format: 'json' | 'proto'): Uint8Array {
  if (format === 'json') {
    const line = new Uint8Array(bytes.byteLength + 1);
    line.set(bytes);
    line[bytes.byteLength] = 0x0a;
    return line;
  }
  const framed = Buffer.allocUnsafe(bytes.byteLength + 4);
  framed.writeUInt32BE(bytes.byteLength, 0);
  framed.set(bytes, 4);
  return framed;
}

/**
 * The batch's requests, in the order logs, metrics, traces, one per non-empty part, in one buffer so the
 * batch is appended in one write. Strict OTLP/JSON (internal/otlp-json-*.ts) or the one-pass protobuf
 * encoders (internal/otlp-proto-*.ts), the same content either way.
 */
function encode(batch: SignalBatch, format: 'json' | 'proto'): Uint8Array {
  const json = format === 'json';
  const requests: Uint8Array[] = [];
  if (batch.records.length > 0) {
    const records = batch.records as ReadableLogRecord[];
    requests.push(frame(json ? encodeLogsRequestJson(records) : encodeLogsRequest(records), format));
  }
  if (batch.metrics?.length) {
    requests.push(frame(json ? encodeMetricsRequestJson(batch.metrics) : encodeMetricsRequest(batch.metrics), format));
  }
  if (batch.spans?.length) {
    requests.push(frame(json ? encodeTraceRequestJson(batch.spans) : encodeTraceRequest(batch.spans), format));
  }
  return requests.length === 1 ? requests[0]! : Buffer.concat(requests);
}

/**
 * Writes each batch as OTLP export requests, like the collector's file exporter: one
 * ExportLogsServiceRequest for its log records, one ExportMetricsServiceRequest for its metric points, one
 * ExportTraceServiceRequest for its spans (each only when there are some), appended together. A batch is
 * acknowledged after its bytes were written and, with `sync` (default), fsync'ed.
 */
export function createFileExporter(config: FileExporterConfig): SignalConsumer {
  if (!config.path) throw new ConfigError(['path: required: the file to write to']);
  const writer = new RotatingFileWriter(config.path, {
    sync: config.sync,
    rotation: config.rotation && {
      maxBytes: Math.round(config.rotation.max_megabytes * 1024 * 1024),
      maxBackups: config.rotation.max_backups,
      maxDays: config.rotation.max_days,
      localTime: config.rotation.localtime,
    },
  });
  return {
    async consume(batch: SignalBatch, signal?: AbortSignal): Promise<void> {
      if (signal?.aborted) throw signal.reason;
      if (batchItemCount(batch) === 0) return;
      let bytes: Uint8Array;
      try {
        bytes = encode(batch, config.format);
      } catch (error) {
        throw new PermanentError(
          `file exporter cannot encode the batch: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
      // Disk errors (ENOSPC, EIO, EACCES) stay retryable: they may clear, and the data is not at fault.
      await writer.append(bytes);
    },
    async shutdown(): Promise<void> {
      await writer.close();
    },
  };
}
