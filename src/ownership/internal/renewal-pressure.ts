import { performance } from 'node:perf_hooks';

/**
 * The default renewal latency limit, in ms: a quarter of the slack between a renewal falling due and its claim's
 * deadline (lease duration − safety margin − renew interval): 2 s at the defaults (15 s, 2 s, 5 s), 9.5 s with a
 * 60 s lease. Storage (or an event loop) that answers renewals slower than this is on its way to the point
 * where renewals miss their deadlines.
 */
export function defaultRenewalLatencyLimitMs(
  leaseDurationMs: number,
  safetyMarginMs: number,
  renewIntervalMs: number,
): number {
  return Math.max(1, Math.floor((leaseDurationMs - safetyMarginMs - renewIntervalMs) / 4));
}

/**
 * Admission control for claims, from how the storage service answers lease renewals. A claim costs several
 * requests (create, acquire, epoch write, then the partition's checkpoint read and first write); at a large
 * share those can queue at the service in front of the renewals, so renewals miss their deadlines, leases
 * are lost and claimed again, which adds more load. While renewals are late, the coordinator starts no new
 * claim: the service's capacity goes to the leases already held.
 *
 * Late means: a renewal in flight for longer than `limitMs`, or one that ended within the last `limitMs`
 * after taking longer than that or failing without a definite answer (a timeout, a 5xx); or the renewal
 * tick itself firing more than `limitMs` late (an event loop this busy sends and reads renewals late,
 * whatever the service does). All clear by themselves once renewals come back in time, so claiming
 * resumes on its own.
 */
export class RenewalPressure {
  readonly limitMs: number;
  readonly #now: () => number;
  /** Renewals in flight: token → when sent. */
  readonly #inFlight = new Map<symbol, number>();
  /** When the last renewal that was late (slow or failed) ended; -Infinity if none. */
  #lastLateAt = Number.NEGATIVE_INFINITY;
  /** Latency of that renewal (or its age when it failed), in ms, for logs. */
  #lastLateMs = 0;

  constructor(limitMs: number, now: () => number = () => performance.now()) {
    if (!(limitMs > 0)) throw new RangeError(`limitMs (${limitMs}) must be positive`);
    this.limitMs = limitMs;
    this.#now = now;
  }

  /** A renewal is sent; call the returned function once with its outcome when it ends. */
  begin(): (outcome: 'renewed' | 'gone' | 'failed') => void {
    const token = Symbol('renewal');
    const sentAt = this.#now();
    this.#inFlight.set(token, sentAt);
    return (outcome) => {
      if (!this.#inFlight.delete(token)) return;
      const now = this.#now();
      const tookMs = now - sentAt;
      // A definite answer (renewed, or 409/412/404: not ours) counts by its latency; a failure without one
      // (a timeout, a 5xx, a refused connection) counts as late however fast it came.
      if (outcome === 'failed' || tookMs > this.limitMs) {
        this.#lastLateAt = now;
        this.#lastLateMs = Math.max(1, tookMs);
      }
    };
  }

  /** The renewal tick fired `lateMs` after it was due: a busy event loop delays every renewal as much. */
  tickLate(lateMs: number): void {
    if (lateMs <= this.limitMs) return;
    this.#lastLateAt = this.#now();
    this.#lastLateMs = lateMs;
  }

  /** How late renewals are now, in ms: the oldest renewal in flight, or a recent late one; 0 when in time. */
  lateMs(): number {
    const now = this.#now();
    let oldest = 0;
    for (const sentAt of this.#inFlight.values()) oldest = Math.max(oldest, now - sentAt);
    if (oldest > this.limitMs) return oldest;
    return now - this.#lastLateAt < this.limitMs ? this.#lastLateMs : 0;
  }

  /** True while new claims should wait for the renewals. */
  congested(): boolean {
    return this.lateMs() > 0;
  }

  /** Renewals in flight now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }
}
