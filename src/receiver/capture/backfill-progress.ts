/**
 * Per-partition backfill progress of one receiver: which sequence range a partition reads from Capture
 * now, how far it got, and totals; for stats (metrics, the fleet page) and health.
 */
export interface BackfillRange {
  readonly partitionId: string;
  /** First and last sequence number of the range read from Capture (inclusive). */
  readonly fromSequenceNumber: number;
  readonly toSequenceNumber: number;
  /** Next sequence number the backfill hands over. */
  readonly nextSequenceNumber: number;
  /** Events still to read in the range. */
  readonly remainingEvents: number;
  /** When this partition's backfill began (ms since the epoch). */
  readonly since: number;
}

export class BackfillProgress {
  readonly #active = new Map<string, { from: number; to: number; next: number; since: number }>();

  begin(partitionId: string, from: number, to: number): void {
    const current = this.#active.get(partitionId);
    this.#active.set(partitionId, {
      from: current?.from ?? from,
      to,
      next: current?.next ?? from,
      since: current?.since ?? Date.now(),
    });
  }

  advance(partitionId: string, next: number): void {
    const a = this.#active.get(partitionId);
    if (a) a.next = Math.max(a.next, next);
  }

  end(partitionId: string): void {
    this.#active.delete(partitionId);
  }

  isActive(partitionId: string): boolean {
    return this.#active.has(partitionId);
  }

  ranges(): BackfillRange[] {
    return [...this.#active].map(([partitionId, a]) => ({
      partitionId,
      fromSequenceNumber: a.from,
      toSequenceNumber: a.to,
      nextSequenceNumber: a.next,
      remainingEvents: Math.max(0, a.to - a.next + 1),
      since: a.since,
    }));
  }
}
