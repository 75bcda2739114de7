import type { ISerializer } from '@opentelemetry/otlp-transformer';
import type { Logger } from '../../component/logger.ts';
import type { Signal } from '../../pipeline/signals.ts';

/** The response field naming the rejected count, per signal (opentelemetry-proto collector services). */
const REJECTED_FIELD: Readonly<Record<Signal, string>> = {
  logs: 'rejectedLogRecords',
  metrics: 'rejectedDataPoints',
  traces: 'rejectedSpans',
};

/**
 * The serializer with its response side watched for OTLP partial success: a 2xx / OK answer whose
 * `partial_success` says the server dropped some items (`rejected_log_records`, `rejected_data_points`,
 * `rejected_spans`). The specification makes such a request accepted and not to be retried, and the library
 * treats it so (logging to its `diag`, which nothing here listens to); this logs a warning with the count
 * and the server's message, so a backend dropping data is visible. The export still succeeds.
 */
export function withPartialSuccessLog<Request, Response>(
  inner: ISerializer<Request, Response>,
  signal: Signal,
  name: string,
  logger: Logger | undefined,
): ISerializer<Request, Response> {
  if (!logger) return inner;
  return {
    serializeRequest: (request) => inner.serializeRequest(request),
    deserializeResponse(data) {
      const response = inner.deserializeResponse(data);
      const partial = (response as { partialSuccess?: Record<string, unknown> } | undefined)?.partialSuccess;
      const rejected = Number(partial?.[REJECTED_FIELD[signal]] ?? 0);
      const message = typeof partial?.errorMessage === 'string' ? partial.errorMessage : '';
      if (rejected > 0 || message !== '') {
        logger.warn(`the server accepted the ${signal} request but rejected part of it (OTLP partial success)`, {
          exporter: name,
          [REJECTED_FIELD[signal]]: rejected,
          error_message: message,
        });
      }
      return response;
    },
  };
}
