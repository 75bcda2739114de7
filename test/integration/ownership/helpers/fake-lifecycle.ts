/**
 * A fake PartitionLifecycle shared by several coordinators: it records every start and stop on one timeline
 * and notes a violation whenever a partition is started while another coordinator still reads it.
 */
import type { PartitionClaim, PartitionLifecycle, StopReason } from '../../../../src/ownership/coordinator.ts';

export interface TimelineEvent {
  readonly at: number;
  readonly who: string;
  readonly partitionId: string;
  readonly kind: 'start' | 'stop';
  readonly reason?: StopReason | 'crash';
  readonly ownerLevel?: number;
}

export class Timeline {
  readonly events: TimelineEvent[] = [];
  readonly violations: string[] = [];
  readonly #active = new Map<string, string>();
  readonly #claims = new Map<string, PartitionClaim>();

  /** A lifecycle for one coordinator; `stopDelayMs` stands for finishing the in-flight batch on yield/shutdown. */
  lifecycle(who: string, stopDelayMs = 20): PartitionLifecycle {
    return {
      startPartition: async (claim) => {
        const current = this.#active.get(claim.partitionId);
        if (current !== undefined) this.violations.push(`${who} started ${claim.partitionId} while ${current} was reading it`);
        this.#active.set(claim.partitionId, who);
        this.#claims.set(`${who}/${claim.partitionId}`, claim);
        this.events.push({ at: Date.now(), who, partitionId: claim.partitionId, kind: 'start', ownerLevel: claim.ownerLevel });
      },
      stopPartition: async (partitionId, reason) => {
        if (reason !== 'lost') await new Promise((r) => setTimeout(r, stopDelayMs));
        if (this.#active.get(partitionId) === who) this.#active.delete(partitionId);
        else this.violations.push(`${who} stopped ${partitionId} it was not reading`);
        this.events.push({ at: Date.now(), who, partitionId, kind: 'stop', reason });
      },
    };
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
export async function waitFor(what: string, predicate: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 25): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await predicate()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
