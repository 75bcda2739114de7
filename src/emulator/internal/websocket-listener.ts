/**
 * AMQP over WebSockets for the emulator: an HTTP(S) server that upgrades `GET /$servicebus/websocket`
 * with the `AMQPWSB10` (or `amqp`) subprotocol and hands each WebSocket to the emulator's rhea container as the
 * byte stream of one AMQP connection. The Azure SDKs build `wss://<host>:<port>/$servicebus/websocket`
 * and offer `["AMQPWSB10"]` (@azure/core-amqp 4.4 ConnectionContextBase.create; the path from
 * @azure/event-hubs 6.0 connectionContext.ts), always over TLS: serve with a certificate for them.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

/** The path the Azure SDKs (and the service) use for AMQP over WebSockets. */
export const WEBSOCKET_PATH = '/$servicebus/websocket';
/** The WebSocket subprotocol the Azure SDKs for JS, .NET, Java and Python offer (the binding's working draft). */
export const AMQP_WEBSOCKET_PROTOCOL = 'AMQPWSB10';
/**
 * Subprotocols accepted, in order of preference: `AMQPWSB10`, and `amqp`, the name the OASIS "AMQP
 * WebSocket Binding" 1.0 registers, which the Azure SDKs for Go (go-amqp) offer to the service.
 */
export const AMQP_WEBSOCKET_PROTOCOLS: readonly string[] = [AMQP_WEBSOCKET_PROTOCOL, 'amqp'];

type Handler = (...args: any[]) => void;

/**
 * The socket-shaped face rhea's Connection expects (`write`, `end`, `on('data' | 'end' | 'error')`), plus
 * `destroy`, so the emulator's abrupt-drop fault and `stop()` cut a WebSocket as they cut a TCP socket.
 */
export class WebSocketStream {
  readonly #ws: WebSocket;
  readonly #id: string;
  readonly #handlers: Array<[string, Handler]> = [];

  constructor(ws: WebSocket, id: string) {
    this.#ws = ws;
    this.#id = id;
  }

  get destroyed(): boolean {
    return this.#ws.readyState === this.#ws.CLOSED;
  }

  write(data: Buffer): void {
    if (this.#ws.readyState === this.#ws.OPEN) this.#ws.send(data, { binary: true });
  }

  end(): void {
    this.#ws.close();
  }

  destroy(): void {
    this.#ws.terminate();
  }

  on(event: 'data' | 'end' | 'error', handler: Handler): this {
    const wsEvent = event === 'data' ? 'message' : event === 'end' ? 'close' : 'error';
    const wrapped: Handler = event === 'end' ? () => handler() : handler;
    this.#handlers.push([wsEvent, wrapped]);
    this.#ws.on(wsEvent, wrapped);
    return this;
  }

  removeAllListeners(event?: 'data' | 'end' | 'error'): this {
    const wsEvent =
      event === undefined ? undefined : event === 'data' ? 'message' : event === 'end' ? 'close' : 'error';
    for (const [name, handler] of this.#handlers)
      if (wsEvent === undefined || name === wsEvent) this.#ws.off(name, handler);
    return this;
  }

  get_id_string(): string {
    return this.#id;
  }
}

export interface WebSocketListenerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** PEM certificate and key: `wss`. Without them plain `ws` (which the Azure SDKs never use). */
  readonly tls?: { cert: string | Buffer; key: string | Buffer };
  /** Called with each accepted WebSocket, already wrapped for rhea. */
  readonly onStream: (stream: WebSocketStream) => void;
}

export class WebSocketListener {
  readonly #server: Server;
  readonly #wss = new WebSocketServer({ noServer: true, handleProtocols: pickProtocol });
  /** Every accepted TCP socket, so stop() can cut those of clients that never finished the upgrade. */
  readonly #sockets = new Set<Duplex>();
  #port = 0;

  constructor(private readonly options: WebSocketListenerOptions) {
    const tls = options.tls;
    this.#server = tls ? createHttpsServer({ cert: tls.cert, key: tls.key }) : createHttpServer();
    this.#server.on(tls ? 'secureConnection' : 'connection', (socket: Duplex) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
    this.#server.on('request', (_req, res) => {
      res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' });
      res.end(`AMQP over WebSockets: upgrade GET ${WEBSOCKET_PATH} with subprotocol ${AMQP_WEBSOCKET_PROTOCOL}\n`);
    });
    this.#server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.#upgrade(req, socket, head),
    );
  }

  get port(): number {
    return this.#port;
  }

  async start(): Promise<void> {
    const server = this.#server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: this.options.host, port: this.options.port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    this.#port = typeof address === 'object' && address ? address.port : 0;
  }

  /** Stops listening and cuts every connection (their AMQP connections were closed politely before). */
  async stop(): Promise<void> {
    if (!this.#server.listening) return;
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const ws of this.#wss.clients) ws.terminate();
    for (const socket of this.#sockets) socket.destroy();
    this.#wss.close();
    await closed;
  }

  #upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(req.url ?? '/', 'http://emulator').pathname;
    if (path !== WEBSOCKET_PATH) return refuse(socket, 404, 'Not Found');
    const offered = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim());
    if (!AMQP_WEBSOCKET_PROTOCOLS.some((p) => offered.includes(p))) return refuse(socket, 400, 'Bad Request');
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      const id = `ws ${req.socket.remoteAddress ?? ''}:${req.socket.remotePort ?? ''}`;
      this.options.onStream(new WebSocketStream(ws, id));
    });
  }
}

function pickProtocol(protocols: Set<string>): string | false {
  return AMQP_WEBSOCKET_PROTOCOLS.find((p) => protocols.has(p)) ?? false;
}

function refuse(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
