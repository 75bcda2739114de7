/**
 * A loopback HTTP proxy in front of Azurite that counts requests by method and path, so a benchmark can
 * cross-check what the receiver reports against what the storage service actually received.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingProxy {
  readonly port: number;
  /** Requests seen so far whose method and URL path match. */
  count(method: string, pathIncludes: string): number;
  /** Requests seen so far whose method, path and query match (`query` is the raw query string). */
  countWhere(match: (r: { method: string; path: string; query: string }) => boolean): number;
  stop(): Promise<void>;
}

export async function startCountingProxy(targetPort: number): Promise<CountingProxy> {
  const seen: Array<{ method: string; path: string; query: string }> = [];
  const server: Server = createServer((req, res) => {
    const [path = '', query = ''] = (req.url ?? '').split('?');
    seen.push({ method: req.method ?? '', path, query });
    const upstream = request({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    count: (method, pathIncludes) => seen.filter((r) => r.method === method && r.path.includes(pathIncludes)).length,
    countWhere: (match) => seen.filter(match).length,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
