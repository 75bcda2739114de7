import { performance } from 'node:perf_hooks';

/**
 * Partitions held by an id that is no member (a crashed instance whose membership lapsed before its
 * partition leases did), with when a round first saw that. Their leases are free within moments, so rounds
 * look again shortly, but only while a lease can still be lapsing: one held longer than a lease duration
 * is renewed by someone.
 */
export class OrphanWatch {
  /** Partition id → when a round first saw it orphaned (performance.now()). */
  readonly #since = new Map<string, number>();
  /** When the last round looked. */
  #seenAt = 0;

  /** Updates from this round's view; true when any of `partitionIds` is orphaned. */
  observe(partitionIds: readonly string[], orphaned: (pid: string) => boolean): boolean {
    const anyOrphaned = partitionIds.some(orphaned);
    const now = performance.now();
    this.#seenAt = now;
    for (const pid of this.#since.keys()) if (!orphaned(pid)) this.#since.delete(pid);
    for (const pid of partitionIds) if (orphaned(pid) && !this.#since.has(pid)) this.#since.set(pid, now);
    return anyOrphaned;
  }

  /** At the last round, the partition had been orphaned for less than `leaseDurationMs` (or was not). */
  lapsing(pid: string, leaseDurationMs: number): boolean {
    const now = this.#seenAt;
    return now - (this.#since.get(pid) ?? now) < leaseDurationMs;
  }
}
