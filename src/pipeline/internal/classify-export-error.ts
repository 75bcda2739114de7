import { PermanentError, isPermanentError } from '../../component/errors.ts';

/**
 * gRPC status codes the OTLP specification lists as retryable (CANCELLED, DEADLINE_EXCEEDED,
 * RESOURCE_EXHAUSTED, ABORTED, OUT_OF_RANGE, UNAVAILABLE, DATA_LOSS); every other code is permanent,
 * as the collector's otlp exporter treats it.
 * https://opentelemetry.io/docs/specs/otlp/#failures
 */
const RETRYABLE_GRPC_CODES: ReadonlySet<number> = new Set([1, 4, 8, 10, 11, 14, 15]);

/** HTTP statuses a client may retry although they are 4xx (OTLP/HTTP spec: 408 and 429 are transient). */
const RETRYABLE_HTTP_4XX: ReadonlySet<number> = new Set([408, 429]);

function looksLikeGrpcError(error: object): error is { code: number; details: unknown; metadata: unknown } {
  return typeof (error as { code?: unknown }).code === 'number' && 'details' in error && 'metadata' in error;
}

/**
 * Decides whether an exporter failure will ever succeed. Permanent: a `PermanentError`; an
 * `OTLPExporterError` carrying an HTTP 4xx other than 408/429 (the server refused the payload itself);
 * a gRPC status outside the retryable list. Everything else (network errors, 5xx, 408, 429, timeouts,
 * the OTLP exporter's "retryable status" error, unknown errors) is retryable.
 */
function isPermanentExportFailure(error: unknown): boolean {
  if (isPermanentError(error)) return true;
  if (typeof error !== 'object' || error === null) return false;
  if (looksLikeGrpcError(error)) return !RETRYABLE_GRPC_CODES.has(error.code);
  const named = error as { name?: unknown; code?: unknown };
  if (named.name === 'OTLPExporterError' && typeof named.code === 'number') {
    return named.code >= 400 && named.code < 500 && !RETRYABLE_HTTP_4XX.has(named.code);
  }
  return false;
}

/** Wraps a permanent failure in a `PermanentError` (keeping it as `cause`); returns others unchanged. */
export function toConsumerError(error: unknown, context: string): unknown {
  if (isPermanentError(error)) return error;
  if (isPermanentExportFailure(error)) {
    return new PermanentError(`${context}: ${describeError(error)}`, { cause: error });
  }
  return error instanceof Error ? error : new Error(`${context}: ${describeError(error)}`, { cause: error });
}

/** A one-line description of any thrown value, with the HTTP/gRPC code when there is one. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return code === undefined || error.message.includes(String(code)) ? error.message || error.name : `${error.message || error.name} (code ${String(code)})`;
  }
  return String(error);
}
