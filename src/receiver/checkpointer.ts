import type { Checkpoint, CheckpointScope, CheckpointStore, OwnershipFence } from '../ownership/checkpoint.ts';

export interface CheckpointerOptions {
  readonly store: CheckpointStore;
  readonly scope: CheckpointScope;
  readonly partitionId: string;
  readonly fence?: OwnershipFence;
  /** Write at most this often. Default 5000 ms. */
  readonly intervalMs: number;
  /** Also write after this many events since the last write; 0 disables. */
  readonly everyNEvents: number;
  /** The checkpoint read at start, if any: writes never go at or below it. */
  readonly initial?: Checkpoint;
  /**
   * A position beyond `initial` this instance already exported before it claimed the partition again (its
   * lease lapsed while storage was out): marked at once, so the first write stores it. Default none.
   */
  readonly resumeFrom?: Checkpoint;
  /** Shortest time between two writes that the catch-up rule asks for (see mark), ms. Default 1000. */
  readonly minSpacingMs?: number;
  readonly now?: () => number;
}

/** Shortest time between two checkpoint writes of one partition that the catch-up rule asks for. 1 000 ms. */
export const DEFAULT_MIN_CHECKPOINT_SPACING_MS = 1_000;

/**
 * One partition's bookkeeping (kafkajs' offsetManager): `mark` records the last event of a batch the
 * consumer resolved; `flushIfDue` / `flush` write it, throttled by time or count. Writes only move forward,
 * and a failed write keeps the mark for the next attempt.
 *
 * A write is due: at once for the first mark after the partition was claimed (a crash before it would re-read
 * everything drained since the claim, however large the backlog); once `intervalMs` passed since the last write;
 * after `everyNEvents`; and, catching up, once the marked events were enqueued `intervalMs` after the last
 * written one (at most every `minSpacingMs`). So a crash re-reads about one interval of the partition's
 * traffic plus one batch, whether it was reading live or draining a backlog many times faster.
 */
export class Checkpointer {
  readonly #o: CheckpointerOptions;
  readonly #now: () => number;
  #pending: Checkpoint | undefined;
  /** Enqueued time of the pending mark's event and of the last written one, ms; undefined when unknown. */
  #pendingEnqueuedAt: number | undefined;
  #writtenEnqueuedAt: number | undefined;
  /** True once a write went through since the claim. */
  #wroteOnce = false;
  #written: number;
  #lastWriteAt: number;
  #eventsSinceWrite = 0;
  #lastWrittenAt: number | undefined;
  #inFlight: Promise<boolean> | undefined;
  /** After a failed write, no new attempt (by time or by count) before this time. */
  #retryAt = Number.NEGATIVE_INFINITY;

  constructor(options: CheckpointerOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#written = options.initial?.sequenceNumber ?? Number.NEGATIVE_INFINITY;
    this.#lastWriteAt = this.#now();
    const resume = options.resumeFrom;
    if (resume && resume.sequenceNumber > this.#written) this.mark(resume.sequenceNumber, resume.offset, 0);
  }

  /**
   * Records that every event up to and including `sequenceNumber` was resolved by the consumer; `enqueuedAt`
   * (ms) is that event's enqueued time, for the catch-up rule.
   */
  mark(sequenceNumber: number, offset: string, events: number, enqueuedAt?: number): void {
    if (sequenceNumber <= (this.#pending?.sequenceNumber ?? this.#written)) return;
    this.#pending = { partitionId: this.#o.partitionId, sequenceNumber, offset };
    this.#pendingEnqueuedAt = enqueuedAt;
    this.#eventsSinceWrite += events;
  }

  /** Milliseconds until a write is due (0 = now); Infinity when nothing is pending. */
  msUntilDue(): number {
    if (!this.#pending) return Number.POSITIVE_INFINITY;
    // A failing store is tried again one interval later, whatever the count says: every batch of every
    // pump retrying at once would hammer storage through its outage.
    const now = this.#now();
    if (now < this.#retryAt) return this.#retryAt - now;
    if (!this.#wroteOnce) return 0;
    if (this.#o.everyNEvents > 0 && this.#eventsSinceWrite >= this.#o.everyNEvents) return 0;
    const byTime = Math.max(0, this.#lastWriteAt + this.#o.intervalMs - now);
    const [pendingAt, writtenAt] = [this.#pendingEnqueuedAt, this.#writtenEnqueuedAt];
    if (pendingAt !== undefined && writtenAt !== undefined && pendingAt - writtenAt >= this.#o.intervalMs) {
      const spacing = this.#o.minSpacingMs ?? DEFAULT_MIN_CHECKPOINT_SPACING_MS;
      return Math.min(byTime, Math.max(0, this.#lastWriteAt + spacing - now));
    }
    return byTime;
  }

  /** Seconds since the last successful write; undefined before the first. */
  ageSeconds(): number | undefined {
    return this.#lastWrittenAt === undefined ? undefined : (this.#now() - this.#lastWrittenAt) / 1000;
  }

  /** The highest sequence number durably written. */
  writtenSequenceNumber(): number | undefined {
    return Number.isFinite(this.#written) ? this.#written : undefined;
  }

  async flushIfDue(): Promise<boolean> {
    return this.msUntilDue() === 0 ? this.flush() : false;
  }

  /** Writes the pending checkpoint now. Resolves true when something was written; rejects on failure. */
  async flush(): Promise<boolean> {
    while (this.#inFlight) await this.#inFlight.catch(() => undefined);
    const pending = this.#pending;
    if (!pending || pending.sequenceNumber <= this.#written) return false;
    const pendingEnqueuedAt = this.#pendingEnqueuedAt;
    this.#inFlight = (async () => {
      await this.#o.store.write(this.#o.scope, pending, this.#o.fence);
      this.#written = Math.max(this.#written, pending.sequenceNumber);
      this.#writtenEnqueuedAt = pendingEnqueuedAt;
      this.#wroteOnce = true;
      if (this.#pending === pending) this.#pending = undefined;
      this.#eventsSinceWrite = 0;
      this.#lastWriteAt = this.#lastWrittenAt = this.#now();
      this.#retryAt = Number.NEGATIVE_INFINITY;
      return true;
    })();
    try {
      return await this.#inFlight;
    } catch (error) {
      // Keep the mark; try again at the next interval rather than hammering a failing store.
      this.#lastWriteAt = this.#now();
      this.#retryAt = this.#lastWriteAt + this.#o.intervalMs;
      throw error;
    } finally {
      this.#inFlight = undefined;
    }
  }
}
