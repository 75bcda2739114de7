import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { PermanentError } from '../component/errors.ts';
import type { SignalConsumer } from './consumer.ts';
import type { SignalBatch } from './signal-batch.ts';
import { abortReason } from '../component/abort.ts';
import { describeError, toConsumerError } from './internal/classify-export-error.ts';
import { signalItems, type SignalItem } from './signal-items.ts';
import type { Signal } from './signals.ts';

/** How long to wait for an exporter's result callback before calling the export failed. 30 000 ms. */
export const DEFAULT_EXPORT_TIMEOUT_MS = 30_000;

export interface ExporterAdapterOptions {
  /**
   * Time to wait for the exporter's result callback; when it passes, the call rejects with a
   * retryable error (the export may still complete later: a retry can then duplicate it).
   * Default 30 000 ms.
   */
  readonly timeoutMs?: number;
  /** Name used in error messages, e.g. `otlphttp/backend`. Default the exporter's class name. */
  readonly name?: string;
}

/** A retryable failure: the exporter did not call back within the adapter's timeout. */
export class ExportTimeoutError extends Error {
  override readonly name = 'ExportTimeoutError';
}

/**
 * Wraps any OpenTelemetry JS `LogRecordExporter` (OTLP http/proto/grpc, console, in-memory) as a
 * `SignalConsumer`. The promise resolves when the exporter reports SUCCESS. Failures are classified:
 * a `PermanentError`, an OTLP HTTP 4xx other than 408/429, a non-retryable gRPC status or a synchronous
 * throw from `export()` (the serializer failed on this data, so it would fail again) reject with a
 * `PermanentError`; network errors, 5xx, 408, 429 and timeouts reject with a retryable error.
 *
 * The exporter API has no cancellation: when `signal` aborts, the call rejects at once with the
 * signal's reason, and the export itself runs to its end in the background.
 */
export function fromLogRecordExporter(
  exporter: LogRecordExporter,
  options: ExporterAdapterOptions = {},
): SignalConsumer {
  // The SDK types records as a mutable array; exporters only read it.
  return fromItemExporter(exporter as ItemExporter<ReadableLogRecord>, 'logs', options);
}

/**
 * The exporter shape of the OpenTelemetry JS libraries for any signal (`OTLPExporterBase<Item[]>` is one):
 * `export(items, callback)`, `forceFlush`, `shutdown`.
 */
export interface ItemExporter<Item> {
  export(items: readonly Item[], resultCallback: (result: ExportResult) => void): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * `fromLogRecordExporter` for the items of any signal: exports the batch's `signal` part (log records,
 * metric points or spans) and nothing else, with the same timeout, classification and abort handling.
 */
export function fromItemExporter<S extends Signal>(
  exporter: ItemExporter<SignalItem<S>>,
  part: S,
  options: ExporterAdapterOptions = {},
): SignalConsumer {
  const timeoutMs = options.timeoutMs ?? DEFAULT_EXPORT_TIMEOUT_MS;
  const name = options.name ?? exporter.constructor?.name ?? 'exporter';
  let shutdownPromise: Promise<void> | undefined;

  return {
    consume(batch: SignalBatch, signal?: AbortSignal): Promise<void> {
      if (signal?.aborted) return Promise.reject(abortReason(signal));
      if (part === 'logs' && batch.encodedLogs) {
        // Only a consumer that declares acceptsEncodedLogs is given these: never skip them silently.
        return Promise.reject(new PermanentError(`${name}: cannot send log records encoded ahead (encodedLogs)`));
      }
      const items = signalItems(batch, part);
      if (items.length === 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        let settled = false;
        const finish = (error?: unknown) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          if (error === undefined) resolve();
          else reject(error);
        };
        const onAbort = () => finish(abortReason(signal!));
        const timer = setTimeout(
          () => finish(new ExportTimeoutError(`${name}: no export result within ${timeoutMs} ms`)),
          timeoutMs,
        );
        timer.unref();
        signal?.addEventListener('abort', onAbort, { once: true });
        const onResult = (result: ExportResult) => {
          if (result.code === ExportResultCode.SUCCESS) finish();
          else finish(toConsumerError(result.error ?? new Error(`${name}: export failed without an error`), name));
        };
        try {
          exporter.export(items, onResult);
        } catch (error) {
          // A synchronous throw comes from serializing this very data: retrying cannot help.
          finish(new PermanentError(`${name}: export threw: ${describeError(error)}`, { cause: error }));
        }
      });
    },
    forceFlush(): Promise<void> {
      return exporter.forceFlush();
    },
    shutdown(): Promise<void> {
      shutdownPromise ??= exporter.shutdown();
      return shutdownPromise;
    },
  };
}
