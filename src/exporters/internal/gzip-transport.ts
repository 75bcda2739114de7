import { gzip } from 'node:zlib';
import type { ExportResponse, IExporterTransport } from '@opentelemetry/otlp-exporter-base';

/**
 * zlib's default gzip level (6): what the OTLP JS exporters use (zlib.createGzip() without options), what the
 * Go collector's confighttp uses when `compression_params.level` is unset or -1 (zlib.DefaultCompression), and
 * what the library's own gzip gives when our transport cannot go in.
 */
export const ZLIB_DEFAULT_GZIP_LEVEL = 6;

/**
 * The `otlphttp` exporter's gzip level when none is set: 1, not zlib's 6. On OTLP protobuf of Azure resource
 * logs level 1 took 2.4× less CPU than 6 for 1.09× the bytes on the pipeline bench's mix (1.4× on the
 * otlp-encode bench's more repetitive batches), and gzip at 6 was the largest single cost of the shipped
 * pipeline outside decoding (docs/exporters.md, "Compression choices"). `compression_level: 6` (or
 * `compression_params.level: -1`, Go's spelling) gives the collector's bytes back.
 */
export const DEFAULT_GZIP_LEVEL = 1;

/** Go's zlib.DefaultCompression, which the collector's `compression_params.level` accepts: means level 6. */
export const GO_DEFAULT_COMPRESSION = -1;

/** Unset becomes DEFAULT_GZIP_LEVEL (1); `-1` (Go's "default") becomes 6; 1–9 pass through. */
export function effectiveGzipLevel(level: number | undefined): number {
  if (level === undefined) return DEFAULT_GZIP_LEVEL;
  return level === GO_DEFAULT_COMPRESSION ? ZLIB_DEFAULT_GZIP_LEVEL : level;
}

/** Smallest and largest output chunk of one gzip call: zlib's default (16 KiB) and 1 MiB. */
const MIN_CHUNK_BYTES = 16 * 1024;
const MAX_CHUNK_BYTES = 1024 * 1024;

/**
 * zlib's output chunk for a body of `length` bytes: a quarter of it, within 16 KiB and 1 MiB. The async
 * gzip returns to the JavaScript thread after every chunk it fills, and the next chunk waits until that
 * thread is free: with zlib's default 16 KiB, a 1.35 MB OTLP request (about 130 KB gzipped) made 9 such
 * trips, on a thread busy receiving, and took 23.6 ms against 17.2 ms with one chunk (pipeline bench). OTLP
 * bodies shrink 5–10× at any level, so a quarter is one trip for them; the bytes are the same either way.
 */
export function gzipChunkBytes(length: number): number {
  return Math.min(Math.max(length >>> 2, MIN_CHUNK_BYTES), MAX_CHUNK_BYTES);
}

function gzipAsync(data: Uint8Array, level: number): Promise<Buffer> {
  const options = { level, chunkSize: gzipChunkBytes(data.length) };
  return new Promise((resolve, reject) => gzip(data, options, (error, out) => (error ? reject(error) : resolve(out))));
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
