import { performance } from 'node:perf_hooks';
import type { OwnershipEvent } from '../coordinator.ts';
import type { MembershipLease } from './membership-lease.ts';
import type { PartitionLease } from './partition-lease.ts';
import type { RenewalPressure } from './renewal-pressure.ts';
import { toStorageError } from '../storage-errors.ts';

/** How often, in ms, the coordinator looks for claims whose renewal is due (at most a quarter renew interval). */
export const RENEW_TICK_MS = 250;

export interface RenewalScheduleOptions {
  readonly renewIntervalMs: number;
  readonly pressure: RenewalPressure;
  readonly membership: MembershipLease;
  /** The claims held now; those not `active` are skipped. */
  readonly claims: () => Iterable<PartitionLease>;
  readonly emit: (event: OwnershipEvent) => void;
  /** A renewal found the lease gone for sure: stop the claim at once. */
  readonly lose: (claim: PartitionLease, error: Error) => void;
  /** Called at every tick, after the membership's renewal is sent and before the claims' renewals. */
  readonly onTick: () => void;
  /** True once the coordinator is closed: no further tick is scheduled. */
  readonly closed: () => boolean;
}

/**
 * Renewals are due per claim, `renewIntervalMs` after that claim's last attempt (or its acquisition, or a
 * renewal a checkpoint fence made), checked every RENEW_TICK_MS. Claims made at different moments thus
 * renew at different moments: a large share does not send all its renewals in one burst (128 at once per
 * instance at 1024 partitions over 8), whose queueing at a loaded storage service made renewals miss
 * their deadlines and lose leases. A renewal in flight is not sent again; one that hangs holds only itself.
 * The membership lease renews on the same ticks. Every renewal's latency feeds the RenewalPressure.
 */
export class RenewalSchedule {
  readonly #options: RenewalScheduleOptions;
  #timer: NodeJS.Timeout | undefined;
  /** Claims (and the membership) with a renewal in flight, and those renewals. */
  readonly #renewing = new Set<PartitionLease | 'membership'>();
  readonly #renewals = new Set<Promise<void>>();
  /** Aborted by `abort()`: renewals still waiting for an answer end at once. */
  readonly #stop = new AbortController();
  #membershipAttemptAt = performance.now();

  constructor(options: RenewalScheduleOptions) {
    this.#options = options;
  }

  /** Schedules the next tick (unless closed); each tick schedules the one after. Call once. */
  start(): void {
    if (this.#options.closed()) return;
    const tickMs = Math.min(RENEW_TICK_MS, this.#options.renewIntervalMs / 4);
    const dueAt = performance.now() + tickMs;
    this.#timer = setTimeout(() => {
      this.#options.pressure.tickLate(performance.now() - dueAt);
      this.#renewDue();
      this.start();
    }, tickMs);
    this.#timer.unref();
  }

  /** Stops the ticks; renewals in flight go on (see `settled`). */
  stop(): void {
    clearTimeout(this.#timer);
  }

  /**
   * Ends the renewals in flight (a shutdown, once every claim is released): a renewal waits for its answer
   * as long as its lease has time left (up to the lease duration), which would hold a shutdown that long
   * while storage does not answer. Their failures are not reported.
   */
  abort(): void {
    this.#stop.abort();
  }

  /** Resolves once the renewals in flight now have ended. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#renewals]);
  }

  #renewDue(): void {
    const { pressure, membership, renewIntervalMs: intervalMs } = this.#options;
    const now = performance.now();
    if (now - this.#membershipAttemptAt >= intervalMs && !this.#renewing.has('membership')) {
      this.#membershipAttemptAt = now;
      const ended = pressure.begin();
      const renewal = membership.renew(this.#stop.signal).then(
        () => ended('renewed'),
        (error: unknown) => {
          ended('failed');
          if (this.#stop.signal.aborted) return;
          this.#options.emit({ type: 'storageError', error: toStorageError(error) });
        },
      );
      this.#track('membership', renewal);
    }
    this.#options.onTick();
    for (const claim of this.#options.claims()) {
      if (!claim.active || this.#renewing.has(claim) || !claim.renewalDue(intervalMs, now)) continue;
      this.#track(claim, this.#renew(claim));
    }
  }

  #track(key: PartitionLease | 'membership', renewal: Promise<void>): void {
    this.#renewing.add(key);
    const done = renewal.finally(() => {
      this.#renewing.delete(key);
      this.#renewals.delete(done);
    });
    this.#renewals.add(done);
  }

  async #renew(claim: PartitionLease): Promise<void> {
    const ended = this.#options.pressure.begin();
    const result = await claim.renew(this.#stop.signal);
    ended(result.ok ? 'renewed' : result.gone ? 'gone' : 'failed');
    if (result.ok || !claim.active || this.#stop.signal.aborted) return;
    const error = toStorageError(result.error);
    this.#options.emit({ type: 'renewalFailed', partitionId: claim.partitionId, error });
    // Definitely gone: stop now. Otherwise retry at the next renewal; the claim's deadline is the backstop.
    if (result.gone) this.#options.lose(claim, error);
  }
}
