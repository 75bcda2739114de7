/** Per-connection state: the client's container id, its granted claims and its links. */
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
  /** Server senders that carry replies, by link name and by target address (the request's reply_to). */
  readonly replyLinks = new Map<string, any>();

  constructor(readonly connection: any) {}

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
}
