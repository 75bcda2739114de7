import { performance } from 'node:perf_hooks';
import type { OwnershipEvent } from '../coordinator.ts';
import type { RenewalPressure } from './renewal-pressure.ts';

/**
 * Claims (each a lease, then the partition's start) in flight at once. A claim of a large share (128
 * partitions at 1024 over 8 instances) must not start every pump together, or the starts overrun their
 * deadline; this many in flight, topped up as each ends, keeps storage and the hub busy without a storm.
 */
export const MAX_CLAIMS_IN_FLIGHT = 32;

/** Per partition: true = claimed and started, false = not claimed, undefined = not tried. */
export interface ClaimBatch {
  readonly results: Array<boolean | undefined>;
  /** Claims were left for late renewals (see RenewalPressure). */
  readonly deferred: boolean;
}

/** What a batch of claims is chosen from and allowed to do. */
export interface ClaimBatchInput {
  readonly pids: readonly string[];
  /** Claims one partition; resolves true when it was claimed and its start succeeded. */
  readonly claim: (pid: string) => Promise<boolean>;
  /** False once the coordinator is shutting down: no new claim starts. */
  readonly running: () => boolean;
  /** When the listing the partitions were chosen from was read (performance.now()). */
  readonly listedAt: number;
  /** A listing older than this, in ms, chooses no more claims. */
  readonly maxViewAgeMs: number;
}

/**
 * Admission of claims: how many run at once, and whether any may start while lease renewals are late.
 * The window of claims in flight is halved at each pause for late renewals (the claims still in flight when
 * the pause began are what pushed renewals late) and grows by one per claim made in time, up to
 * MAX_CLAIMS_IN_FLIGHT. A pause is told once (`claimsPaused`) and its end once (`claimsResumed`).
 */
export class ClaimAdmission {
  readonly #pressure: RenewalPressure;
  readonly #emit: (event: OwnershipEvent) => void;
  readonly #ownedCount: () => number;
  /** A round deferred claims for late renewals, and no round claimed since. */
  #paused = false;
  /** Claims in flight allowed now. */
  #window = MAX_CLAIMS_IN_FLIGHT;

  constructor(pressure: RenewalPressure, emit: (event: OwnershipEvent) => void, ownedCount: () => number) {
    this.#pressure = pressure;
    this.#emit = emit;
    this.#ownedCount = ownedCount;
  }

  /** Claims are paused and renewals are back in time: the next round may claim again. */
  get resumable(): boolean {
    return this.#paused && !this.#pressure.congested();
  }

  /**
   * Claims `pids` in order, at most the window at a time, topping up as each finishes rather than in waves,
   * and starting no new claim once the listing they were chosen from is older than `maxViewAgeMs` (the next
   * round decides the rest from a fresh view), nor while lease renewals are late (`deferred`).
   */
  async claimAll(input: ClaimBatchInput): Promise<ClaimBatch> {
    const { pids } = input;
    const results: Array<boolean | undefined> = pids.map(() => undefined);
    let next = 0;
    let deferred = false;
    let active = 0;
    const worker = async (): Promise<void> => {
      while (next < pids.length && input.running()) {
        if (performance.now() - input.listedAt > input.maxViewAgeMs) return;
        // Renewals first: a claim is several requests, and at a slow service they would queue in front of
        // the renewals of the leases already held.
        if (this.#pressure.congested()) return void (deferred = true);
        if (active >= this.#window) return;
        const i = next++;
        const pid = pids[i]!;
        active++;
        results[i] = await input.claim(pid);
        active--;
        if (results[i] && !this.#pressure.congested()) {
          this.#window = Math.min(MAX_CLAIMS_IN_FLIGHT, this.#window + 1);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#window, pids.length) }, worker));
    if (deferred) this.#pause(results.filter((r) => r === undefined).length);
    return { results, deferred };
  }

  /** A round got through its claims without deferring any: a pause, if on, is over. */
  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#emit({ type: 'claimsResumed' });
  }

  /** Claims wait for late renewals: `left` of this round's claims are deferred; told once per pause. */
  #pause(left: number): void {
    if (this.#paused) return;
    this.#paused = true;
    this.#window = Math.max(1, Math.floor(this.#window / 2));
    const lateMs = Math.round(this.#pressure.lateMs());
    this.#emit({ type: 'claimsPaused', lateMs, owned: this.#ownedCount(), deferred: left });
  }
}
