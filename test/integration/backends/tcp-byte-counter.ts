/**
 * A loopback TCP relay that counts the bytes the server sends to the client. Credit-based flow control
 * bounds what an AMQP server may send, so these bytes show how far a reader let the service run ahead,
 * for either backend, without looking inside it.
 */
import { createServer, connect } from 'node:net';
import type { Socket } from 'node:net';

export interface ByteCounter {
  readonly port: number;
  /** Bytes sent from the upstream server towards the client so far. */
  readonly downstreamBytes: number;
  close(): Promise<void>;
}

export async function startByteCounter(upstreamPort: number, upstreamHost = '127.0.0.1'): Promise<ByteCounter> {
  let downstreamBytes = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(upstreamPort, upstreamHost);
    sockets.add(client);
    sockets.add(upstream);
    upstream.on('data', (chunk: Buffer) => {
      downstreamBytes += chunk.length;
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    get downstreamBytes() {
      return downstreamBytes;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
