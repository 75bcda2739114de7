/**
 * Workaround for `@opentelemetry/otlp-exporter-base` internals, written for 0.223.1 (the version
 * `@opentelemetry/exporter-logs-otlp-http` and `-proto` 0.223.1 build on).
 *
 * Why: the library's HTTP exporters wrap their transport in a `RetryingTransport`
 * (build/src/retrying-transport.js) that re-sends a request answered 429/502/503/504, or that failed
 * with a retryable network error or timed out, up to 5 more times (1 s × 1.5^n ±20 %, capped at 5 s, or
 * the server's Retry-After) within the request's timeout. Our `retry_on_failure` runs around the
 * exporter, so one of our attempts could be six requests and ~12 s (measured), and its schedule was no
 * longer what the config says. The library offers no option to turn it off; the gRPC exporter has no
 * such layer (its transport returns every failure at once).
 *
 * How: `OTLPExporterBase#_delegate._transport` is the `RetryingTransport`, whose `_transport` is the
 * plain HTTP transport. We put back a transport that sends once and turns a "retryable" answer into a
 * `RetryLaterError` carrying the Retry-After the library parsed (`retryInMillis`), so our retry still
 * honours it. test/integration/exporters/otlp-http-exporter.test.ts checks that a server answering 503
 * sees exactly one request per attempt, and test/unit/exporters/otlp-exporter-base-retry.test.ts fails
 * when this shape changes.
 *
 * The same place is where the `otlphttp` exporter's gzip level plugs in (internal/gzip-transport.ts): the
 * plain HTTP transport, built with compression `none`, is wrapped by one that gzips at the configured level.
 * When the shape is unknown the caller builds the exporter again with the library's own gzip (level 6).
 */
import type { ExportResponse, IExporterTransport } from '@opentelemetry/otlp-exporter-base';
import { RetryLaterError } from '../../component/errors.ts';

/** The otlp-exporter-base version this workaround was written for. */
export const OTLP_EXPORTER_BASE_VERSION = '0.223.1';

/** `unwrapped`: the library's retry is off. `unknown-shape`: the internals differ; its retry may still run. */
export type LibraryRetryResult = 'unwrapped' | 'unknown-shape';

interface DelegateShape {
  _transport?: { constructor?: { name?: string }; send?: unknown; _transport?: IExporterTransport };
}

/**
 * Replaces the library's retrying transport inside an OTLP HTTP exporter with a single-attempt one.
 * `wrapInner`, if given, wraps the library's plain HTTP transport below it (e.g. to compress each body).
 * Idempotent (a second call changes nothing, `wrapInner` included). Returns `unknown-shape` (and changes
 * nothing) when the internals are not as expected.
 */
export function disableLibraryRetry(
  exporter: object,
  wrapInner?: (inner: IExporterTransport) => IExporterTransport,
): LibraryRetryResult {
  const delegate = (exporter as { _delegate?: DelegateShape })._delegate;
  const current = delegate?._transport;
  if (current instanceof SingleAttemptTransport) return 'unwrapped';
  const inner = current?._transport;
  if (!delegate || current?.constructor?.name !== 'RetryingTransport' || typeof inner?.send !== 'function') {
    return 'unknown-shape';
  }
  delegate._transport = new SingleAttemptTransport(wrapInner ? wrapInner(inner) : inner);
  return 'unwrapped';
}

/** Sends once; a retryable answer becomes a `RetryLaterError` with the server's Retry-After, if any. */
class SingleAttemptTransport implements IExporterTransport {
  readonly #inner: IExporterTransport;
  constructor(inner: IExporterTransport) {
    this.#inner = inner;
  }

  async send(data: Uint8Array, timeoutMillis: number): Promise<ExportResponse> {
    const response = await this.#inner.send(data, timeoutMillis);
    if (response.status !== 'retryable') return response;
    // The library parses Retry-After into `retryInMillis` (-1 or 0 for "now"). A network error or a
    // timeout comes with `error` and no Retry-After: passed on as is (our retry treats it as retryable).
    const after =
      response.retryInMillis !== undefined && response.retryInMillis > 0 ? response.retryInMillis : undefined;
    if (response.error && after === undefined) return response;
    const message = response.error?.message || 'the OTLP server answered a retryable status (429, 502, 503 or 504)';
    const wait = after !== undefined ? `; Retry-After ${Math.ceil(after / 1000)} s` : '';
    return { status: 'retryable', error: new RetryLaterError(`${message}${wait}`, after, { cause: response.error }) };
  }

  shutdown(): void {
    this.#inner.shutdown();
  }
}
