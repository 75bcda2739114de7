/**
 * A small HTTP proxy on a free loopback port, to prove that traffic goes through a proxy: it opens
 * `CONNECT host:port` tunnels (what WebSockets over `wss` and `https` requests use) and forwards
 * absolute-form `http://` requests (what the storage SDK sends to an `http` endpoint such as Azurite).
 * It counts both, optionally requires Basic credentials (407 otherwise), and records every
 * `Proxy-Authorization` it saw so tests can check which credentials a client sent.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export interface TestProxy {
  /** `http://127.0.0.1:<port>` (`https://` with `tls`), with the credentials when the proxy requires them. */
  readonly url: string;
  readonly port: number;
  /** Successful CONNECT tunnels, by `host:port` target. */
  readonly tunnels: string[];
  /** Forwarded plain-HTTP requests, as `METHOD url`. */
  readonly forwarded: string[];
  /** Requests refused with 407. */
  refused: number;
  close(): Promise<void>;
}

export interface TestProxyOptions {
  /** Require Basic auth with these credentials. */
  readonly credentials?: { readonly username: string; readonly password: string };
  /** PEM certificate and key: an `https://` proxy (clients reach the proxy itself over TLS). */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
}

export async function startTestProxy(options: TestProxyOptions = {}): Promise<TestProxy> {
  const sockets = new Set<Duplex>();
  const expected = options.credentials
    ? `Basic ${Buffer.from(`${options.credentials.username}:${options.credentials.password}`).toString('base64')}`
    : undefined;
  const authorized = (req: IncomingMessage): boolean =>
    expected === undefined || req.headers['proxy-authorization'] === expected;
  const server: Server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key })
    : createServer();
  const proxy: TestProxy = {
    url: '',
    port: 0,
    tunnels: [],
    forwarded: [],
    refused: 0,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
  const track = (socket: Duplex): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  server.on(options.tls ? 'secureConnection' : 'connection', track);
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    if (!authorized(req)) {
      proxy.refused++;
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: ' +
          '0\r\n\r\n',
      );
      return;
    }
    const target = String(req.url);
    const [host, port] = splitHostPort(target);
    const upstream: Socket = connect({ host, port }, () => {
      proxy.tunnels.push(target);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    track(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.on('request', (req, res) => {
    if (!authorized(req)) {
      proxy.refused++;
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    let target: URL;
    try {
      target = new URL(String(req.url));
    } catch {
      res.writeHead(400).end();
      return;
    }
    proxy.forwarded.push(`${req.method} ${target.origin}${target.pathname}`);
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = httpRequest(target, { method: req.method, headers }, (response) => {
      res.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const creds = options.credentials;
  const auth = creds ? `${encodeURIComponent(creds.username)}:${encodeURIComponent(creds.password)}@` : '';
  return Object.assign(proxy, { port, url: `${options.tls ? 'https' : 'http'}://${auth}127.0.0.1:${port}` });
}

function splitHostPort(target: string): [string, number] {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(target);
  return m ? [m[1]!, Number(m[2])] : [target, 443];
}
