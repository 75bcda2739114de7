/**
 * A tiny OTLP/HTTP server for tests (logs, metrics, traces), on loopback and port 0: records each request (path,
 * headers,
 * decoded body) and answers with a scripted status sequence.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { decodeLogsRequest } from '../../helpers/otlp-logs-proto.ts';
import { strictDecodeProto } from '../../helpers/otlp-strict.ts';

export interface ReceivedRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  /** The request body, gunzipped when it was sent with Content-Encoding: gzip. */
  readonly body: Buffer;
  /** Bytes on the wire: the body's length before gunzipping. */
  readonly wireBytes: number;
  /** The parsed body for application/json requests. */
  readonly json?: any;
  /**
   * The body of an application/x-protobuf request decoded with the opentelemetry-proto schema: as an
   * ExportLogsServiceRequest (test/helpers/otlp-logs-proto.ts), or, on a path ending in `/v1/metrics` or
   * `/v1/traces`, strictly as that signal's request (test/helpers/otlp-strict.ts). A body that does not
   * decode is answered 400 (and recorded without this field).
   */
  readonly proto?: any;
}

export interface ScriptedResponse {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

export interface OtlpTestServer {
  readonly url: string;
  readonly requests: ReceivedRequest[];
  /** Responses for the next requests, in order; afterwards 200 `{}`. */
  readonly script: ScriptedResponse[];
  /** Responses for the next requests to one path (e.g. `/v1/traces`), in order; taken before `script`. */
  readonly pathScripts: Map<string, ScriptedResponse[]>;
  close(): Promise<void>;
}

export async function startOtlpServer(tls?: { cert: Buffer; key: Buffer }): Promise<OtlpTestServer> {
  const requests: ReceivedRequest[] = [];
  const script: ScriptedResponse[] = [];
  const pathScripts = new Map<string, ScriptedResponse[]>();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      const wireBytes = body.length;
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const json = req.headers['content-type']?.startsWith('application/json')
        ? JSON.parse(body.toString('utf8'))
        : undefined;
      let proto: any;
      let invalid: string | undefined;
      if (req.headers['content-type'] === 'application/x-protobuf') {
        try {
          const path = req.url ?? '';
          proto = path.endsWith('/v1/metrics')
            ? strictDecodeProto(body, 'metrics')
            : path.endsWith('/v1/traces')
              ? strictDecodeProto(body, 'traces')
              : decodeLogsRequest(body);
        } catch (error) {
          invalid = `not an OTLP request for ${req.url}: ${String(error)}`;
        }
      }
      requests.push({ path: req.url ?? '', headers: req.headers, body, wireBytes, json, proto });
      const next =
        invalid !== undefined
          ? { status: 400, body: invalid }
          : (pathScripts.get(req.url ?? '')?.shift() ??
            script.shift() ?? { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' });
      res.writeHead(next.status, next.headers ?? {});
      res.end(next.body ?? '');
    });
  };
  const server: Server = tls ? createHttpsServer({ cert: tls.cert, key: tls.key }, handler) : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    script,
    pathScripts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
