/**
 * A fake PartitionLifecycle shared by several coordinators: it records every start and stop on one timeline
 * and notes a violation whenever a partition is started while another coordinator still reads it.
 */
import type {
  PartitionClaim,
  PartitionEnd,
  PartitionEndReason,
  PartitionLifecycle,
  StopReason,
} from '../../../../src/ownership/coordinator.ts';
import { waitUntil } from '../../../helpers/wait-until.ts';

export interface TimelineEvent {
  readonly at: number;
  readonly who: string;
  readonly partitionId: string;
  readonly kind: 'start' | 'stop';
  readonly reason?: StopReason | PartitionEndReason | 'crash';
  readonly ownerLevel?: number;
}

export class Timeline {
  readonly events: TimelineEvent[] = [];
  readonly violations: string[] = [];
  readonly #active = new Map<string, string>();
  readonly #claims = new Map<string, PartitionClaim>();
  readonly #enders = new Map<string, (end: PartitionEnd) => void>();

  /** A lifecycle for one coordinator; `stopDelayMs` stands for finishing the in-flight batch on yield/shutdown. */
  lifecycle(who: string, stopDelayMs = 20): PartitionLifecycle {
    return {
      startPartition: async (claim) => {
        const { partitionId } = claim;
        const current = this.#active.get(partitionId);
        if (current !== undefined)
          this.violations.push(`${who} started ${partitionId} while ${current} was reading it`);
        this.#active.set(partitionId, who);
        this.#claims.set(`${who}/${partitionId}`, claim);
        this.events.push({ at: Date.now(), who, partitionId, kind: 'start', ownerLevel: claim.ownerLevel });
        let settle!: (end: PartitionEnd) => void;
        const ended = new Promise<PartitionEnd>((resolve) => (settle = resolve));
        let done = false;
        const finish = (end: PartitionEnd, reason: StopReason | PartitionEndReason) => {
          if (done) return;
          done = true;
          this.#enders.delete(`${who}/${partitionId}`);
          if (this.#active.get(partitionId) === who) this.#active.delete(partitionId);
          else this.violations.push(`${who} stopped ${partitionId} it was not reading`);
          this.events.push({ at: Date.now(), who, partitionId, kind: 'stop', reason });
          settle(end);
        };
        this.#enders.set(`${who}/${partitionId}`, (end) => finish(end, end.reason));
        return {
          ended,
          stop: async (reason) => {
            if (reason !== 'lost') await new Promise((r) => setTimeout(r, stopDelayMs));
            finish({ reason: 'stopped' }, reason);
            return ended;
          },
        };
      },
    };
  }

  /** Ends a partition's reading by itself (link stolen, an error), as a pump would. */
  end(who: string, partitionId: string, end: PartitionEnd): boolean {
    const ender = this.#enders.get(`${who}/${partitionId}`);
    ender?.(end);
    return ender !== undefined;
  }

  /** The claim a coordinator's last start of the partition received. */
  claim(who: string, partitionId: string): PartitionClaim | undefined {
    return this.#claims.get(`${who}/${partitionId}`);
  }

  /** A crashed process reads nothing any more: end its partitions on the timeline now. */
  crash(who: string): string[] {
    const ended: string[] = [];
    for (const [pid, owner] of this.#active) {
      if (owner !== who) continue;
      this.#active.delete(pid);
      ended.push(pid);
      this.events.push({ at: Date.now(), who, partitionId: pid, kind: 'stop', reason: 'crash' });
    }
    return ended;
  }

  /** Partitions each coordinator reads now. */
  reading(who: string): string[] {
    return [...this.#active].filter(([, owner]) => owner === who).map(([pid]) => pid);
  }

  count(who: string): number {
    return this.reading(who).length;
  }
}

/** Polls `predicate` every `intervalMs` until it holds; rejects with `what` after `timeoutMs`. */
export function waitFor(
  what: string,
  predicate: () => boolean | Promise<boolean>,
  timeoutMs: number,
  intervalMs = 25,
): Promise<number> {
  return waitUntil(predicate, timeoutMs, what, intervalMs);
}
