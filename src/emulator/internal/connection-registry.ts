/**
 * Client connections and what hangs off them: the client's container id, its granted claims, its
 * consumer and producer links. Connection-wide operations (drop, detach matching receivers, wake
 * receivers, close everything) live here; the server decides when to call them.
 */
import type { ConsumerLink } from './consumer-link.ts';
import type { Authorization } from './request-handlers.ts';
import { scopeCovers } from './sas-token.ts';

export interface ProducerLinkState {
  receiver: any;
  hub: string;
  partitionId?: string;
}

export class ConnectionState {
  containerId = '';
  readonly authorizations: Authorization[] = [];
  readonly consumers = new Set<ConsumerLink>();
  readonly producers = new Set<ProducerLinkState>();
  /** Links attached under a claim (rhea link → entity path): detached when no claim covers them any more. */
  readonly claimedLinks = new Map<any, string>();
  /** Server senders that carry replies, by link name and by target address (the request's reply_to). */
  readonly replyLinks = new Map<string, any>();

  /** Server senders on `$cbs` and `$management`, newest last, for requests that name no reply_to. */
  private readonly nodeReplyLinks: Array<{ node: 'cbs' | 'management'; link: any }> = [];

  constructor(readonly connection: any) {}

  addReplyLink(link: any, node: 'cbs' | 'management'): void {
    this.replyLinks.set(String(link.name), link);
    for (let i = this.nodeReplyLinks.length - 1; i >= 0; i--)
      if (!this.nodeReplyLinks[i]!.link.is_open()) this.nodeReplyLinks.splice(i, 1);
    this.nodeReplyLinks.push({ node, link });
  }

  /** The newest open reply link on `node`, preferring one in `session` (the request link's session). */
  replyLinkOnNode(node: 'cbs' | 'management', session: unknown): any {
    let fallback: any;
    for (let i = this.nodeReplyLinks.length - 1; i >= 0; i--) {
      const entry = this.nodeReplyLinks[i]!;
      if (entry.node !== node || !entry.link.is_open()) continue;
      if (entry.link.session === session) return entry.link;
      fallback ??= entry.link;
    }
    return fallback;
  }

  grant(authorization: Authorization): void {
    const now = Date.now();
    // Drop expired grants and the previous grant for this audience (the SDK renews tokens periodically).
    for (let i = this.authorizations.length - 1; i >= 0; i--) {
      const a = this.authorizations[i]!;
      if (a.expiresAtMs <= now || a.audience === authorization.audience) this.authorizations.splice(i, 1);
    }
    this.authorizations.push(authorization);
  }

  isAuthorized(entityPath: string, nowMs = Date.now()): boolean {
    return this.authorizations.some((a) => a.expiresAtMs > nowMs && scopeCovers(a.audience, `sb://x/${entityPath}`));
  }

  /** Remembers a link that attached while a claim covered it, so it is detached when the claim expires. */
  attachedUnderClaim(link: any, entityPath: string): void {
    if (this.isAuthorized(entityPath)) this.claimedLinks.set(link, entityPath);
  }
}

/** How long a connection closed with an AMQP error gets to send its close frame before its socket is cut. */
const CLOSE_FRAME_GRACE_MS = 50;

/**
 * Cuts a connection's socket. A destroyed socket emits no 'end', so rhea is told explicitly (`eof`):
 * otherwise its heartbeat timers for that connection would keep running.
 */
export function abortConnection(connection: any): void {
  connection.socket?.destroy();
  try {
    connection.eof?.();
  } catch {
    // already disconnected
  }
}

export interface ReceiverFilter {
  hub: string;
  partitionId?: string;
  consumerGroup?: string;
}

function matches(link: ConsumerLink, filter: ReceiverFilter): boolean {
  if (link.log.hub.toLowerCase() !== filter.hub.toLowerCase()) return false;
  if (filter.partitionId !== undefined && link.log.partitionId !== filter.partitionId) return false;
  return filter.consumerGroup === undefined || link.consumerGroup.toLowerCase() === filter.consumerGroup.toLowerCase();
}

/** A link detached because its claim expired. */
export interface ExpiredClaimLink {
  readonly state: ConnectionState;
  readonly link: any;
  readonly entityPath: string;
  readonly role: 'consumer' | 'producer';
}

export class ConnectionRegistry {
  private readonly states = new Map<any, ConnectionState>();

  /** @param onConsumerClosed told about every consumer link that stops (to leave the readers registry). */
  constructor(private readonly onConsumerClosed: (link: ConsumerLink) => void) {}

  ensure(connection: any): ConnectionState {
    let state = this.states.get(connection);
    if (!state) {
      state = new ConnectionState(connection);
      this.states.set(connection, state);
    }
    return state;
  }

  get(connection: any): ConnectionState | undefined {
    return this.states.get(connection);
  }

  /** The open client connections (rhea connection objects). */
  all(): any[] {
    return [...this.states.keys()];
  }

  /** Forgets a connection that closed or dropped, closing its links' bookkeeping. */
  forget(connection: any, condition?: string): void {
    const state = this.states.get(connection);
    if (!state) return;
    this.states.delete(connection);
    for (const link of state.consumers) {
      this.onConsumerClosed(link);
      link.markClosed(condition);
    }
    state.consumers.clear();
    state.producers.clear();
  }

  /** A consumer link ended (client detach): bookkeeping only. */
  consumerClosed(connection: any, link: ConsumerLink, condition?: string): void {
    this.states.get(connection)?.consumers.delete(link);
    this.onConsumerClosed(link);
    link.markClosed(condition);
  }

  /** Removes a link from its connection without detaching it (the caller detaches). */
  unlinkConsumer(link: ConsumerLink): void {
    for (const state of this.states.values()) state.consumers.delete(link);
  }

  /** Detaches the receivers matching `filter` with an AMQP error; returns how many. */
  detachReceivers(filter: ReceiverFilter, condition: string, description: string): number {
    let count = 0;
    for (const state of this.states.values()) {
      for (const link of [...state.consumers]) {
        if (!matches(link, filter)) continue;
        state.consumers.delete(link);
        this.onConsumerClosed(link);
        link.detach(condition, description);
        count++;
      }
    }
    return count;
  }

  /**
   * Detaches every open link whose claim expired with no newer claim covering it, as the service does,
   * with the error `describe` gives; returns what was detached. Links already closed are forgotten.
   */
  detachExpiredClaims(
    nowMs: number,
    describe: (expired: ExpiredClaimLink) => { condition: string; description: string },
  ): ExpiredClaimLink[] {
    const detached: ExpiredClaimLink[] = [];
    for (const state of this.states.values()) {
      for (const [link, entityPath] of [...state.claimedLinks]) {
        if (!link.is_open()) {
          state.claimedLinks.delete(link);
          continue;
        }
        if (state.isAuthorized(entityPath, nowMs)) continue;
        state.claimedLinks.delete(link);
        const consumer = [...state.consumers].find((c) => c.sender === link);
        const expired: ExpiredClaimLink = { state, link, entityPath, role: consumer ? 'consumer' : 'producer' };
        const error = describe(expired);
        if (consumer) {
          state.consumers.delete(consumer);
          this.onConsumerClosed(consumer);
          consumer.detach(error.condition, error.description);
        } else {
          for (const p of state.producers) if (p.receiver === link) state.producers.delete(p);
          link.close(error);
        }
        detached.push(expired);
      }
    }
    return detached;
  }

  /** Closes the producer links of a hub with an AMQP error. */
  closeProducers(hub: string, condition: string, description: string): void {
    for (const state of this.states.values()) {
      for (const p of [...state.producers]) {
        if (p.hub.toLowerCase() !== hub.toLowerCase()) continue;
        state.producers.delete(p);
        p.receiver.close({ condition, description });
      }
    }
  }

  wakeReceivers(filter?: ReceiverFilter): void {
    for (const state of this.states.values()) {
      for (const link of state.consumers) if (!filter || matches(link, filter)) link.pump();
    }
  }

  /** Drops matching connections: cut (no condition) or closed with an AMQP error. Returns how many. */
  drop(options: { containerId?: string; condition?: string; description?: string }): number {
    let count = 0;
    for (const state of [...this.states.values()]) {
      if (options.containerId !== undefined && state.containerId !== options.containerId) continue;
      count++;
      this.forget(state.connection, options.condition ?? 'amqp:connection:forced');
      if (options.condition) {
        state.connection.close({
          condition: options.condition,
          description: options.description ?? 'Injected fault: connection closed.',
        });
        setTimeout(() => abortConnection(state.connection), CLOSE_FRAME_GRACE_MS).unref();
      } else {
        abortConnection(state.connection);
      }
    }
    return count;
  }

  /** Sends every connection an AMQP close (without error) and returns them, forgotten. */
  closeAll(): any[] {
    const connections = [...this.states.keys()];
    for (const connection of connections) {
      this.forget(connection);
      try {
        connection.close();
      } catch {
        // already closing
      }
    }
    return connections;
  }
}
