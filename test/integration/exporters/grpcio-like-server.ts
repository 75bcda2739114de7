/**
 * A minimal OTLP/gRPC logs server on node:http2 that answers the way a grpcio (gRPC C-core) server does:
 * its response headers advertise `grpc-accept-encoding: identity, deflate, gzip`, with a space after each
 * comma, as C-core writes the list (src/core/lib/compression/compression_internal.cc,
 * CommaSeparatedLists). It records, per call, whether the request message was sent compressed (the
 * gRPC frame's compressed flag) and the `grpc-encoding` header, so a test can count compressed calls.
 * Loopback, port 0.
 */
import { createServer, constants, type Http2Server } from 'node:http2';
import { gunzipSync, inflateSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';

/** What C-core sends; grpc-js sends the same list without spaces. */
export const GRPCIO_ACCEPT_ENCODING = 'identity, deflate, gzip';

export interface GrpcCall {
  readonly path: string;
  /** The request's `grpc-encoding` header (undefined: identity). */
  readonly encoding: string | undefined;
  /** The gRPC message frame's compressed flag was set. */
  readonly compressed: boolean;
  /** The request message, decompressed. */
  readonly message: Buffer;
}

export interface GrpcioLikeServer {
  readonly address: string;
  readonly calls: GrpcCall[];
  close(): Promise<void>;
}

export async function startGrpcioLikeServer(acceptEncoding = GRPCIO_ACCEPT_ENCODING): Promise<GrpcioLikeServer> {
  const calls: GrpcCall[] = [];
  const server: Http2Server = createServer();
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const body = Buffer.concat(chunks);
      // One unary request: a 5-byte prefix (compressed flag, big-endian length), then the message.
      const compressed = body.readUInt8(0) === 1;
      const payload = body.subarray(5, 5 + body.readUInt32BE(1));
      const encoding = headers['grpc-encoding'] as string | undefined;
      const message = !compressed ? payload : encoding === 'deflate' ? inflateSync(payload) : gunzipSync(payload);
      calls.push({ path: String(headers[constants.HTTP2_HEADER_PATH]), encoding, compressed, message });
      stream.respond(
        {
          [constants.HTTP2_HEADER_STATUS]: 200,
          'content-type': 'application/grpc',
          'grpc-accept-encoding': acceptEncoding,
          'grpc-encoding': 'identity',
        },
        { waitForTrailers: true },
      );
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      // An empty ExportLogsServiceResponse: a zero-length, uncompressed message.
      stream.end(Buffer.alloc(5));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
