import { performance } from 'node:perf_hooks';

/** After a round that claimed and is still below its share, the next round comes this soon, in ms. */
export const CATCH_UP_DELAY_MS = 50;
/**
 * While a hand-off is under way (a leaving member still holds partitions, or this member waits for an
 * over-owner's yield), rounds come this often, in ms, instead of every update interval.
 */
export const HANDOFF_POLL_MS = 250;
/**
 * Over-owners yield right after a tick of the round grid. A member below its share with nothing to claim
 * polls at HANDOFF_POLL_MS for this long, in ms, after each tick, then waits for the next tick.
 */
export const YIELD_WATCH_MS = 2_000;

/**
 * When balancing rounds run. Regular rounds fall on a grid: multiples of the update interval on the wall
 * clock, so that every instance lists at the same moments and a leaving instance knows when its peers will
 * look. A clock that is off only delays hand-offs to the next round. Rounds come sooner while this instance
 * catches up to its share or a hand-off is under way (`afterClaims`), or when `wake` brings one forward.
 */
export class RoundSchedule {
  readonly #updateIntervalMs: number;
  readonly #run: () => Promise<number>;
  readonly #running: () => boolean;
  #nextRoundAt = Number.POSITIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;

  /** `run` is one round, resolving to the delay before the next; it must never reject. */
  constructor(updateIntervalMs: number, run: () => Promise<number>, running: () => boolean) {
    this.#updateIntervalMs = updateIntervalMs;
    this.#run = run;
    this.#running = running;
  }

  /** The last round started (it may have ended), for a shutdown to wait on. */
  get current(): Promise<void> | undefined {
    return this.#round;
  }

  /** Time to the first tick of the round grid at least `minMs` from now. */
  msToNextTick(minMs: number): number {
    const interval = this.#updateIntervalMs;
    const now = Date.now();
    return Math.ceil((now + minMs) / interval) * interval - now || interval;
  }

  /** The regular round: the next grid tick (one listing per interval; a round off the grid never skips a tick). */
  regularDelay(): number {
    return this.msToNextTick(Math.min(HANDOFF_POLL_MS, this.#updateIntervalMs / 4));
  }

  /** Runs the next round `delayMs` from now (replacing one scheduled), unless the coordinator stopped running. */
  schedule(delayMs: number): void {
    if (!this.#running()) return;
    clearTimeout(this.#timer);
    this.#nextRoundAt = performance.now() + delayMs;
    this.#timer = setTimeout(() => {
      this.#nextRoundAt = Number.POSITIVE_INFINITY;
      this.#round = this.#run().then((next) => this.schedule(next));
    }, delayMs);
    this.#timer.unref();
  }

  /** Brings the next round forward to `delayMs` from now, unless one runs or is due sooner. */
  wake(delayMs: number): void {
    if (!this.#running() || this.#nextRoundAt === Number.POSITIVE_INFINITY) return;
    if (performance.now() + delayMs < this.#nextRoundAt) this.schedule(delayMs);
  }

  /** Cancels the scheduled round; a round in progress goes on (see `current`). */
  stop(): void {
    clearTimeout(this.#timer);
  }

  /** The delay before the next round, after a round that got through its claims. */
  afterClaims(outcome: RoundOutcome): number {
    const intervalMs = this.#updateIntervalMs;
    if (outcome.catchUp && outcome.owned < outcome.fairShare) return Math.min(CATCH_UP_DELAY_MS, intervalMs);
    // Hand-offs under way: poll briefly (never in a settled fleet, so steady-state traffic stays the same).
    const sinceTickMs = Date.now() % intervalMs;
    const poll = Math.min(HANDOFF_POLL_MS, intervalMs);
    const watchingYields = outcome.awaitsYield && sinceTickMs + poll < Math.min(YIELD_WATCH_MS, intervalMs / 2);
    if (outcome.leavingHolds || outcome.orphanLapsing || watchingYields) return poll;
    return this.regularDelay();
  }
}

/** How a round that got through its claims ended, for the choice of when the next one comes. */
export interface RoundOutcome {
  /** A claim succeeded, raced another instance, or was not tried (view too old). */
  readonly catchUp: boolean;
  readonly owned: number;
  readonly fairShare: number;
  /** A leaving member still holds partitions. */
  readonly leavingHolds: boolean;
  /** A claim failed on a partition a dead member held, whose lease can still be lapsing. */
  readonly orphanLapsing: boolean;
  /** Nothing to claim and below the share, with no restart backoff to wait out: an over-owner should yield. */
  readonly awaitsYield: boolean;
}
