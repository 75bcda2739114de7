import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How long `close()` waits for open connections (a scrape in flight) before destroying them. 2 000 ms. */
export const HTTP_CLOSE_TIMEOUT_MS = 2_000;

/** Splits `host:port` (`[::1]:8888` for IPv6). Port 0 asks the OS for a free port. */
function parseHostPort(address: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(address);
  if (!m) throw new Error(`'${address}' is not host:port`);
  const port = Number(m[3]);
  if (port > 65_535) throw new Error(`'${address}': port ${port} is out of range`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

export interface HttpListener {
  /** The bound address, with the real port when 0 was asked for. */
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Starts a small HTTP server for the self-telemetry endpoints (metrics, health). The server does not
 * hold the process open (unref), and `close` never hangs on keep-alive connections.
 */
export async function listenHttp(
  address: string,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<HttpListener> {
  const { host, port } = parseHostPort(address);
  const server: Server = createServer(handler);
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.unref();
  const bound = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    host: bound.address,
    port: bound.port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), HTTP_CLOSE_TIMEOUT_MS);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
