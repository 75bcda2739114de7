import type { ReceiverStatus } from '../receiver/receiver-status.ts';

/** How long a failure must last before a receiver is reported unhealthy. 30 000 ms. */
export const DEFAULT_UNHEALTHY_AFTER_MS = 30_000;

export type HealthStatus = 'starting' | 'ready' | 'unhealthy' | 'stopping';

export interface ReceiverHealth {
  readonly status: HealthStatus;
  /** Why it is not ready or unhealthy: `hubNotReached`, `noPartitionsOwned`, `hubUnreachable`, `checkpointFailing`, ... */
  readonly reason?: string;
  /** The last error message of the failure; the health server redacts it before answering. */
  readonly error?: string;
  readonly ownedPartitions: number;
}

export interface HealthReport {
  readonly status: HealthStatus;
  readonly receivers: Readonly<Record<string, ReceiverHealth>>;
}

class ReceiverTracker {
  hubReached = false;
  standby = false;
  everReady = false;
  readonly owned = new Set<string>();
  hubDownSince: number | undefined;
  hubError: string | undefined;
  checkpointFailingSince: number | undefined;
  checkpointError: string | undefined;
}

/**
 * The health state machine, fed with receiver status events and read on every probe. A receiver is
 * `starting` (not ready) until it has reached the hub and owns partitions or has confirmed standby (a
 * fleet larger than the partition count); then `ready`, and it stays ready through rebalancing. It is
 * `unhealthy` while the hub has been unreachable, or checkpoints have failed, for longer than
 * `unhealthyAfterMs`: a pod the orchestrator should restart or stop routing to. Time is only read at
 * evaluation, so no timers are involved.
 */
export class HealthState {
  readonly #receivers = new Map<string, ReceiverTracker>();
  readonly #unhealthyAfterMs: number;
  readonly #now: () => number;
  #stopping = false;

  constructor(options: { unhealthyAfterMs?: number; now?: () => number } = {}) {
    this.#unhealthyAfterMs = options.unhealthyAfterMs ?? DEFAULT_UNHEALTHY_AFTER_MS;
    this.#now = options.now ?? Date.now;
  }

  /** Registers a receiver: the service is not ready until every registered receiver is. */
  register(receiverId: string): void {
    if (!this.#receivers.has(receiverId)) this.#receivers.set(receiverId, new ReceiverTracker());
  }

  /** Feeds one status event of `receiverId`. */
  update(receiverId: string, status: ReceiverStatus): void {
    this.register(receiverId);
    const t = this.#receivers.get(receiverId)!;
    const now = this.#now();
    switch (status.type) {
      case 'hubReached':
        t.hubReached = true;
        t.hubDownSince = undefined;
        t.hubError = undefined;
        break;
      case 'hubUnreachable':
        t.hubDownSince ??= now;
        t.hubError = status.error.message;
        break;
      case 'partitionOpened':
        t.owned.add(status.partitionId);
        t.standby = false;
        // Reading a partition proves the hub is reachable.
        t.hubReached = true;
        t.hubDownSince = undefined;
        break;
      case 'partitionClosed':
        t.owned.delete(status.partitionId);
        break;
      case 'standby':
        t.standby = true;
        break;
      case 'checkpointWritten':
        t.checkpointFailingSince = undefined;
        t.checkpointError = undefined;
        break;
      case 'checkpointFailed':
        t.checkpointFailingSince ??= now;
        t.checkpointError = status.error.message;
        break;
      default:
        break;
    }
    // Latched here, not at evaluation, so a partition that was owned between two probes still counts.
    if (t.hubReached && (t.owned.size > 0 || t.standby)) t.everReady = true;
  }

  /** Marks the whole service as shutting down: every probe answers 503 from now on. */
  stopping(): void {
    this.#stopping = true;
  }

  report(): HealthReport {
    const receivers: Record<string, ReceiverHealth> = {};
    let overall: HealthStatus = 'ready';
    for (const [id, t] of this.#receivers) {
      const h = this.#evaluate(t);
      receivers[id] = h;
      if (h.status === 'unhealthy') overall = 'unhealthy';
      else if (h.status === 'starting' && overall === 'ready') overall = 'starting';
    }
    if (this.#stopping) overall = 'stopping';
    return { status: overall, receivers };
  }

  #evaluate(t: ReceiverTracker): ReceiverHealth {
    const now = this.#now();
    const ownedPartitions = t.owned.size;
    if (t.hubDownSince !== undefined && now - t.hubDownSince >= this.#unhealthyAfterMs) {
      return { status: 'unhealthy', reason: 'hubUnreachable', ...(t.hubError ? { error: t.hubError } : {}), ownedPartitions };
    }
    if (t.checkpointFailingSince !== undefined && now - t.checkpointFailingSince >= this.#unhealthyAfterMs) {
      return { status: 'unhealthy', reason: 'checkpointFailing', ...(t.checkpointError ? { error: t.checkpointError } : {}), ownedPartitions };
    }
    if (!t.everReady) {
      if (!t.hubReached) return { status: 'starting', reason: t.hubDownSince !== undefined ? 'hubUnreachable' : 'hubNotReached', ownedPartitions };
      return { status: 'starting', reason: 'noPartitionsOwned', ownedPartitions };
    }
    return { status: 'ready', ownedPartitions };
  }
}
