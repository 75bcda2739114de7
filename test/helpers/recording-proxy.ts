/**
 * A loopback TCP proxy that forwards every connection to one AMQP server and decodes both directions
 * with the test's own decoder (amqp-frame-decoder.ts), recording protocol headers and frames in the
 * order the proxy saw them. Bytes are forwarded unchanged, whether or not they decode.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { AmqpFrameReader, type AmqpDecodeError, type AmqpFrame, type AmqpUnit } from './amqp-frame-decoder.ts';

export type Direction = 'client' | 'server';

export interface RecordedUnit {
  /** Which side sent it. */
  from: Direction;
  /** The proxied connection (0, 1, ... in accept order). */
  connection: number;
  /** Which read of that side's socket completed it (0, 1, ...): units of one client write share it on loopback. */
  chunk: number;
  unit: AmqpUnit;
}

export interface RecordingProxy {
  readonly port: number;
  /** Everything decoded so far, in the order seen. */
  readonly units: readonly RecordedUnit[];
  /** Decoding errors (`connection N from server: message`); the bytes were still forwarded. */
  readonly errors: readonly string[];
  /** The frames one side sent, optionally on one connection only, in order. */
  frames(from: Direction, connection?: number): AmqpFrame[];
  /** Connections accepted so far. */
  readonly connections: number;
  /** Resolves with the first recorded unit (past or future) that matches; rejects after `timeoutMs`. */
  waitFor(predicate: (r: RecordedUnit) => boolean, timeoutMs?: number, what?: string): Promise<RecordedUnit>;
  close(): Promise<void>;
}

/** Starts a proxy on a free 127.0.0.1 port forwarding to `target`. */
export async function startRecordingProxy(target: { host?: string; port: number }): Promise<RecordingProxy> {
  const units: RecordedUnit[] = [];
  const errors: string[] = [];
  const waiters = new Set<{ predicate: (r: RecordedUnit) => boolean; resolve: (r: RecordedUnit) => void }>();
  const sockets = new Set<Socket>();
  let connections = 0;

  const record = (r: RecordedUnit): void => {
    units.push(r);
    for (const w of waiters) {
      if (w.predicate(r)) {
        waiters.delete(w);
        w.resolve(r);
      }
    }
  };
  const pipe = (from: Direction, connection: number, source: Socket, sink: Socket): void => {
    const reader = new AmqpFrameReader();
    let broken = false;
    let reads = 0;
    source.on('data', (bytes: Buffer) => {
      sink.write(bytes);
      const chunk = reads++;
      if (broken) return;
      try {
        for (const unit of reader.push(bytes)) record({ from, connection, chunk, unit });
      } catch (error) {
        broken = true;
        for (const unit of (error as AmqpDecodeError).units ?? []) record({ from, connection, chunk, unit });
        errors.push(`connection ${connection} from ${from}: ${(error as Error).message}`);
      }
    });
    source.on('end', () => sink.end());
    source.on('error', () => sink.destroy());
    source.on('close', () => sink.destroy());
  };
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const server: Server = createServer({ noDelay: true }, (client) => {
    const connection = connections++;
    track(client);
    client.pause();
    const upstream = connect({ host: target.host ?? '127.0.0.1', port: target.port, noDelay: true }, () =>
      client.resume(),
    );
    track(upstream);
    pipe('client', connection, client, upstream);
    pipe('server', connection, upstream, client);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    port,
    units,
    errors,
    get connections() {
      return connections;
    },
    frames(from, connection) {
      return units
        .filter(
          (r) =>
            r.from === from && (connection === undefined || r.connection === connection) && r.unit.kind === 'frame',
        )
        .map((r) => r.unit as AmqpFrame);
    },
    waitFor(predicate, timeoutMs = 10_000, what = 'a matching frame') {
      const seen = units.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = {
          predicate,
          resolve: (r: RecordedUnit) => {
            clearTimeout(timer);
            resolve(r);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
