/**
 * A loopback TCP gate in front of storage: the collectors connect to its port. `close()` cuts every
 * connection at once and stops listening (clients get connection refused, as from a stopped server);
 * `open()` listens again on the same port. Used with the on-disk Azurite so a storage outage starts and
 * ends exactly when the bench says: Azurite's own graceful stop waits for open keep-alive connections,
 * which would otherwise keep serving requests during the "outage".
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface StorageGate {
  readonly port: number;
  close(): Promise<void>;
  open(): Promise<void>;
  stop(): Promise<void>;
}

export async function startStorageGate(targetPort: number): Promise<StorageGate> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let listening = true;
  const close = async (): Promise<void> => {
    if (!listening) return;
    listening = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of sockets) s.destroy();
    sockets.clear();
    await closed;
  };
  return {
    port,
    close,
    async open() {
      if (listening) return;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
      listening = true;
    },
    stop: close,
  };
}
