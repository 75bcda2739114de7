import type { BalanceStrategy } from '../balance.ts';
import { defaultRenewalLatencyLimitMs } from './renewal-pressure.ts';

/** Lease duration bounds of Azure Blob Storage leases (finite leases are 15–60 s). */
export const MIN_LEASE_DURATION_MS = 15_000;
export const MAX_LEASE_DURATION_MS = 60_000;
/**
 * 30 s, renewed every 10 s: 6 renewals per claim per minute, and 18 s of slack for a renewal answered late
 * (lease − safety margin − renew interval). 15 s halves the crash failover at twice the renewals.
 */
export const DEFAULT_LEASE_DURATION_MS = 30_000;
export const DEFAULT_UPDATE_INTERVAL_MS = 5_000;
export const DEFAULT_SAFETY_MARGIN_MS = 2_000;
/**
 * A foreign (SDK-style, ETag-claimed) ownership counts as live this long after the blob's Last-Modified:
 * the ownership expiry of the JS and Go SDK processors. The .NET processor's is 2 min.
 */
export const DEFAULT_FOREIGN_OWNERSHIP_EXPIRY_MS = 60_000;
/**
 * A leaving instance aims at the first round tick at least this long, in ms, after its `leaving` mark is
 * stored, so that peers whose clocks run a little ahead still list after the mark.
 */
export const LEAVE_NOTICE_MARGIN_MS = 100;
/** The default leave notice is at most this, in ms, plus the margin, however long the update interval. */
export const MAX_DEFAULT_LEAVE_NOTICE_MS = 5_000;
/**
 * Default timeout of one ownership request (claim, release, listing), in ms, and at most the renew interval.
 * A renewal waits longer: as long as its lease has time left (see PartitionLease.renew).
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;
/** Longest a partition's start (checkpoint read, partition properties, first checkpoint) may take. */
export const DEFAULT_START_TIMEOUT_MS = 30_000;

export interface CoordinatorTimingOptions {
  readonly leaseDurationMs?: number;
  readonly renewIntervalMs?: number;
  readonly updateIntervalMs?: number;
  readonly startDelayMs?: number;
  readonly safetyMarginMs?: number;
  readonly requestTimeoutMs?: number;
  readonly startTimeoutMs?: number;
  readonly leaveNoticeMaxMs?: number;
  readonly foreignOwnershipExpiryMs?: number;
  readonly renewalLatencyLimitMs?: number;
  readonly strategy?: BalanceStrategy;
}

export type CoordinatorTimings = Required<CoordinatorTimingOptions>;

/** Applies defaults and checks the relations between the timings; throws a RangeError that says what to do. */
export function resolveCoordinatorTimings(options: CoordinatorTimingOptions): CoordinatorTimings {
  const leaseDurationMs = options.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
  if (
    !(leaseDurationMs >= MIN_LEASE_DURATION_MS && leaseDurationMs <= MAX_LEASE_DURATION_MS) ||
    leaseDurationMs % 1000 !== 0
  ) {
    throw new RangeError(
      `leaseDurationMs (${leaseDurationMs}) must be whole seconds between ${MIN_LEASE_DURATION_MS} and ` +
        `${MAX_LEASE_DURATION_MS} (blob lease limits)`,
    );
  }
  const renewIntervalMs = options.renewIntervalMs ?? Math.round(leaseDurationMs / 3);
  if (!(renewIntervalMs > 0 && renewIntervalMs <= leaseDurationMs / 2)) {
    throw new RangeError(
      `renewIntervalMs (${renewIntervalMs}) must be positive and at most half of leaseDurationMs ` +
        `(${leaseDurationMs}); set it to about a third (${Math.round(leaseDurationMs / 3)})`,
    );
  }
  const safetyMarginMs = options.safetyMarginMs ?? DEFAULT_SAFETY_MARGIN_MS;
  if (!(safetyMarginMs >= 0 && leaseDurationMs - safetyMarginMs > renewIntervalMs)) {
    throw new RangeError(
      `safetyMarginMs (${safetyMarginMs}) must leave more than one renew interval (${renewIntervalMs} ms) of the ` +
        `lease duration (${leaseDurationMs} ms)`,
    );
  }
  const updateIntervalMs = options.updateIntervalMs ?? DEFAULT_UPDATE_INTERVAL_MS;
  if (!(updateIntervalMs > 0)) throw new RangeError(`updateIntervalMs (${updateIntervalMs}) must be positive`);
  const startDelayMs = options.startDelayMs ?? updateIntervalMs;
  if (!(startDelayMs >= 0)) throw new RangeError(`startDelayMs (${startDelayMs}) must not be negative`);
  const requestTimeoutMs = options.requestTimeoutMs ?? Math.min(renewIntervalMs, DEFAULT_REQUEST_TIMEOUT_MS);
  if (!(requestTimeoutMs > 0)) throw new RangeError(`requestTimeoutMs (${requestTimeoutMs}) must be positive`);
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  if (!(startTimeoutMs > 0)) throw new RangeError(`startTimeoutMs (${startTimeoutMs}) must be positive`);
  const leaveNoticeMaxMs =
    options.leaveNoticeMaxMs ?? Math.min(updateIntervalMs, MAX_DEFAULT_LEAVE_NOTICE_MS) + LEAVE_NOTICE_MARGIN_MS;
  if (!(leaveNoticeMaxMs >= 0))
    throw new RangeError(`leaveNoticeMaxMs (${leaveNoticeMaxMs}) must not be negative; 0 turns the leave notice off`);
  const foreignOwnershipExpiryMs = options.foreignOwnershipExpiryMs ?? DEFAULT_FOREIGN_OWNERSHIP_EXPIRY_MS;
  if (!(foreignOwnershipExpiryMs >= 0)) {
    throw new RangeError(
      `foreignOwnershipExpiryMs (${foreignOwnershipExpiryMs}) must not be negative; 0 turns the check off`,
    );
  }
  const renewalLatencyLimitMs =
    options.renewalLatencyLimitMs ?? defaultRenewalLatencyLimitMs(leaseDurationMs, safetyMarginMs, renewIntervalMs);
  if (!(renewalLatencyLimitMs > 0)) {
    throw new RangeError(`renewalLatencyLimitMs (${renewalLatencyLimitMs}) must be positive`);
  }
  const strategy = options.strategy ?? 'balanced';
  if (strategy !== 'balanced' && strategy !== 'greedy')
    throw new RangeError(`strategy (${String(strategy)}) must be 'balanced' or 'greedy'`);
  return {
    leaseDurationMs,
    renewIntervalMs,
    updateIntervalMs,
    startDelayMs,
    safetyMarginMs,
    requestTimeoutMs,
    startTimeoutMs,
    leaveNoticeMaxMs,
    foreignOwnershipExpiryMs,
    renewalLatencyLimitMs,
    strategy,
  };
}
