import { PermanentError, isPermanentError } from '../../component/errors.ts';
import { RequestTooLargeError } from '../partial-refusal.ts';

/**
 * gRPC status codes the OTLP specification lists as retryable (CANCELLED, DEADLINE_EXCEEDED,
 * RESOURCE_EXHAUSTED, ABORTED, OUT_OF_RANGE, UNAVAILABLE, DATA_LOSS); every other code is permanent,
 * as the collector's otlp exporter treats it.
 * https://opentelemetry.io/docs/specs/otlp/#failures
 */
const RETRYABLE_GRPC_CODES: ReadonlySet<number> = new Set([1, 4, 8, 10, 11, 14, 15]);

/** HTTP statuses a client may retry although they are 4xx (OTLP/HTTP spec: 408 and 429 are transient). */
const RETRYABLE_HTTP_4XX: ReadonlySet<number> = new Set([408, 429]);

/** gRPC RESOURCE_EXHAUSTED. */
const GRPC_RESOURCE_EXHAUSTED = 8;
/** HTTP 413 Content Too Large. */
const HTTP_CONTENT_TOO_LARGE = 413;
/** The status details a gRPC server attaches to say when to retry (google.rpc.RetryInfo). */
const RETRY_INFO_TYPE = 'google.rpc.RetryInfo';

/**
 * The limit a size refusal names: "larger than max (10800000 vs. 4194304)" (grpc-go, C-core, grpc-js),
 * "larger than 4194304" (grpc-js after decompression). Undefined when the message names none.
 */
export function limitNamedIn(message: string): number | undefined {
  const m = /larger than (?:max )?\(?(?:\d+ vs\.? )?(\d+)/.exec(message);
  const limit = m ? Number(m[1]) : Number.NaN;
  return Number.isSafeInteger(limit) && limit > 0 ? limit : undefined;
}

/** Whether a gRPC error's status details (`grpc-status-details-bin`) carry a RetryInfo. */
function hasRetryInfo(error: { metadata: unknown }): boolean {
  const get = (error.metadata as { get?: (key: string) => unknown[] } | null)?.get;
  if (typeof get !== 'function') return false;
  const details = get.call(error.metadata, 'grpc-status-details-bin');
  return details.some((d) => (Buffer.isBuffer(d) ? d.includes(RETRY_INFO_TYPE) : String(d).includes(RETRY_INFO_TYPE)));
}

/**
 * A refusal of the request's size: gRPC RESOURCE_EXHAUSTED without RetryInfo (the OTLP spec makes it
 * retryable only with RetryInfo; a server over its message limit answers it, e.g. the collector's 4 MiB
 * default) or HTTP 413. Retrying the same bytes cannot help; smaller requests can.
 */
function asRequestTooLarge(error: unknown, context: string): RequestTooLargeError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const tooLarge = looksLikeGrpcError(error)
    ? error.code === GRPC_RESOURCE_EXHAUSTED && !hasRetryInfo(error)
    : (error as { name?: unknown }).name === 'OTLPExporterError' &&
      (error as { code?: unknown }).code === HTTP_CONTENT_TOO_LARGE;
  if (!tooLarge) return undefined;
  const description = describeError(error);
  return new RequestTooLargeError(
    `${context}: request too large for the server: ${description}`,
    { limitBytes: limitNamedIn(description) },
    { cause: error },
  );
}

function looksLikeGrpcError(error: object): error is { code: number; details: unknown; metadata: unknown } {
  return typeof (error as { code?: unknown }).code === 'number' && 'details' in error && 'metadata' in error;
}

/**
 * Decides whether an exporter failure will ever succeed. Permanent: a `PermanentError`; an
 * `OTLPExporterError` carrying an HTTP 4xx other than 408/429 (the server refused the payload itself);
 * a gRPC status outside the retryable list (and RESOURCE_EXHAUSTED without RetryInfo: see asRequestTooLarge).
 * Everything else (network errors, 5xx, 408, 429, timeouts,
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

/**
 * Wraps a permanent failure in a `PermanentError` (keeping it as `cause`), a size refusal in a
 * `RequestTooLargeError` (permanent for these bytes); returns others unchanged.
 */
export function toConsumerError(error: unknown, context: string): unknown {
  if (isPermanentError(error)) return error;
  const tooLarge = asRequestTooLarge(error, context);
  if (tooLarge) return tooLarge;
  if (isPermanentExportFailure(error)) {
    return new PermanentError(`${context}: ${describeError(error)}`, { cause: error });
  }
  return error instanceof Error ? error : new Error(`${context}: ${describeError(error)}`, { cause: error });
}

/** A one-line description of any thrown value, with the HTTP/gRPC code when there is one. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return code === undefined || error.message.includes(String(code))
      ? error.message || error.name
      : `${error.message || error.name} (code ${String(code)})`;
  }
  return String(error);
}
