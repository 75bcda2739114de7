import { gzip } from 'node:zlib';
import type { ExportResponse, IExporterTransport } from '@opentelemetry/otlp-exporter-base';

/**
 * zlib's default gzip level, which the OTLP JS exporters use (zlib.createGzip() without options) and the Go
 * collector's confighttp too (compression_params.level unset means zlib.DefaultCompression, i.e. 6).
 */
export const DEFAULT_GZIP_LEVEL = 6;

/** Go's zlib.DefaultCompression, which the collector's `compression_params.level` accepts: means level 6. */
export const GO_DEFAULT_COMPRESSION = -1;

/** `-1` (Go's "default") becomes 6; 1–9 pass through. */
export function effectiveGzipLevel(level: number | undefined): number {
  return level === undefined || level === GO_DEFAULT_COMPRESSION ? DEFAULT_GZIP_LEVEL : level;
}

function gzipAsync(data: Uint8Array, level: number): Promise<Buffer> {
  return new Promise((resolve, reject) => gzip(data, { level }, (error, out) => (error ? reject(error) : resolve(out))));
}

/**
 * Gzips each request body at a chosen level, then hands it to a transport that sends bytes as they are
 * (configured with compression `none` and a `Content-Encoding: gzip` header). The OTLP JS exporters offer
 * no level: their transport pipes the body through `zlib.createGzip()` at level 6. Compression runs on
 * libuv's thread pool (the async `zlib.gzip`), as the library's stream did, not on the JavaScript thread.
 */
export class GzipTransport implements IExporterTransport {
  readonly #inner: IExporterTransport;
  readonly #level: number;

  /** @param level gzip level, 1 (fastest) to 9 (smallest). */
  constructor(inner: IExporterTransport, level: number) {
    this.#inner = inner;
    this.#level = level;
  }

  async send(data: Uint8Array, timeoutMillis: number): Promise<ExportResponse> {
    let body: Buffer;
    try {
      body = await gzipAsync(data, this.#level);
    } catch (error) {
      // zlib fails only on invalid options or out of memory: not the data's fault, not worth a retry.
      return { status: 'failure', error: error instanceof Error ? error : new Error(String(error)) };
    }
    return this.#inner.send(body, timeoutMillis);
  }

  shutdown(): void {
    this.#inner.shutdown();
  }
}
