/**
 * The streaming backend's one AMQP connection per HubClient, built with `@azure/core-amqp`'s
 * ConnectionContextBase (the SDK's connection settings: TLS on 5671, or plain TCP on 5672 with
 * `UseDevelopmentEmulator=true`, a port in the endpoint wins; 60 s idle timeout; no rhea-level
 * reconnect). After a drop the next `open()` starts a fresh connection (`refreshConnection`), and
 * everyone who registered with `onDisconnected` hears about the drop once.
 */
import type { CbsClient, ConnectionConfig, ConnectionContextBase as ConnectionContextBaseType } from '@azure/core-amqp';
import { ConnectionContextBase } from '@azure/core-amqp';
import type { Connection, EventContext } from 'rhea-promise';
import { ConnectionEvents } from 'rhea-promise';
import { settledByDisconnect } from './internal/rhea-promise-internals.ts';

const PRODUCT = 'otelcol-azure-eventhub';
const VERSION = '0.1.0';

export type DisconnectListener = (connection: Connection, error: Error) => void;

export class AmqpConnection {
  readonly config: ConnectionConfig;
  readonly #context: ConnectionContextBaseType;
  readonly #listeners = new Set<DisconnectListener>();
  #opening: Promise<Connection> | undefined;
  #usedOnce = false;
  #closed = false;

  constructor(config: ConnectionConfig, operationTimeoutMs: number) {
    this.config = config;
    this.#context = ConnectionContextBase.create({
      config,
      connectionProperties: { product: PRODUCT, version: VERSION, userAgent: `${PRODUCT}/${VERSION}` },
      operationTimeoutInMs: operationTimeoutMs,
    });
  }

  /** `sb://host[:port]/`, the prefix of every CBS audience. */
  get endpoint(): string {
    return this.config.endpoint;
  }

  get connectionId(): string {
    return this.#context.connectionId;
  }

  get cbs(): CbsClient {
    return this.#context.cbsSession;
  }

  get cbsLock(): string {
    return this.#context.cbsSession.cbsLock;
  }

  get negotiateClaimLock(): string {
    return this.#context.negotiateClaimLock;
  }

  /** The open connection, opening (or replacing a dropped one) first. Concurrent callers share one open. */
  open(): Promise<Connection> {
    if (this.#closed) return Promise.reject(new Error('the AMQP connection is closed'));
    const current = this.#context.connection;
    if (current.isOpen()) return Promise.resolve(current);
    this.#opening ??= this.#open().finally(() => {
      this.#opening = undefined;
    });
    return this.#opening;
  }

  onDisconnected(listener: DisconnectListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listeners.clear();
    const connection = this.#context.connection;
    connection.on(ConnectionEvents.error, () => undefined);
    this.#context.wasConnectionCloseCalled = true;
    try {
      this.#context.cbsSession.remove();
      if (connection.isOpen()) await settledByDisconnect(connection, connection.close());
      else connection.removeAllSessions();
    } catch {
      // Closing is best effort: the socket goes away with the process either way.
    }
  }

  async #open(): Promise<Connection> {
    if (this.#usedOnce) {
      const old = this.#context.connection;
      old.removeAllListeners();
      // An EventEmitter 'error' without a listener throws; the old connection may still report one.
      old.on(ConnectionEvents.error, () => undefined);
      old.removeAllSessions();
      this.#context.refreshConnection();
    }
    this.#usedOnce = true;
    const connection = this.#context.connection;
    let notified = false;
    const notify = (context: EventContext): void => {
      if (notified || this.#closed) return;
      notified = true;
      const raw = context.error ?? context.connection?.error;
      const error =
        raw instanceof Error
          ? raw
          : Object.assign(new Error(describe(raw) ?? 'the AMQP connection was lost'), {
              name: 'ConnectionLostError',
              code: 'ConnectionLostError',
              retryable: true,
              ...(raw && typeof raw === 'object' && 'condition' in raw
                ? { condition: (raw as { condition: unknown }).condition }
                : {}),
            });
      for (const listener of [...this.#listeners]) listener(connection, error);
    };
    connection.on(ConnectionEvents.disconnected, notify);
    connection.on(ConnectionEvents.connectionError, notify);
    // rhea reports a frame it cannot accept (e.g. a transfer after the peer's own detach) as 'error' and
    // ends the socket; without a listener the EventEmitter would throw it at the process.
    connection.on(ConnectionEvents.error, notify);
    connection.on(ConnectionEvents.connectionClose, (context) => {
      // A close the service started (e.g. amqp:connection:forced); our own close sets #closed first.
      if (!this.#closed) notify(context);
    });
    await connection.open();
    return connection;
  }
}

function describe(raw: unknown): string | undefined {
  if (raw && typeof raw === 'object') {
    const { condition, description } = raw as { condition?: unknown; description?: unknown };
    if (condition || description) return `${String(condition ?? '')}: ${String(description ?? '')}`;
  }
  return undefined;
}
