/**
 * A loopback HTTP proxy in front of Azurite that counts requests by method and path, so a benchmark can
 * cross-check what the receiver reports against what the storage service actually received.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the proxy saw it. */
export interface SeenRequest {
  readonly method: string;
  /** URL path, without the query. */
  readonly path: string;
  /** The raw query string. */
  readonly query: string;
  /** The `comp` query parameter (`lease`, `metadata`, `list`, ...), or '' when absent. */
  readonly comp: string;
  /** The `x-ms-lease-action` header (`acquire`, `renew`, `release`, ...), or '' when absent. */
  readonly leaseAction: string;
  /** From the request's arrival to the end of the upstream response, in ms; absent until it ended. */
  latencyMs?: number;
}

export interface CountingProxy {
  readonly port: number;
  /** Requests seen so far whose method and URL path match. */
  count(method: string, pathIncludes: string): number;
  /** Requests seen so far, in arrival order (the array grows; slice it to take a window). */
  readonly requests: readonly SeenRequest[];
  /** Requests seen so far that match (`query` is the raw query string). */
  countWhere(match: (r: SeenRequest) => boolean): number;
  stop(): Promise<void>;
}

export async function startCountingProxy(targetPort: number): Promise<CountingProxy> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const [path = '', query = ''] = (req.url ?? '').split('?');
    const leaseAction = req.headers['x-ms-lease-action'];
    const arrivedAt = performance.now();
    const entry: SeenRequest = {
      method: req.method ?? '',
      path,
      query,
      comp: new URLSearchParams(query).get('comp') ?? '',
      leaseAction: typeof leaseAction === 'string' ? leaseAction : '',
    };
    seen.push(entry);
    res.once('finish', () => (entry.latencyMs = performance.now() - arrivedAt));
    const upstream = request(
      { host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests: seen,
    count: (method, pathIncludes) => seen.filter((r) => r.method === method && r.path.includes(pathIncludes)).length,
    countWhere: (match) => seen.filter(match).length,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
