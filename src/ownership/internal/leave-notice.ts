import { performance } from 'node:perf_hooks';
import type { Logger } from '../../component/logger.ts';
import { LEAVE_NOTICE_MARGIN_MS } from './coordinator-timings.ts';
import type { MembershipLease } from './membership-lease.ts';
import { toStorageError } from '../storage-errors.ts';

/** A leaving instance starts stopping its partitions this long, in ms, before the tick its peers list at. */
export const RELEASE_LEAD_MS = 500;

export interface LeaveNotice {
  /** The longest wait, in ms (`leaveNoticeMaxMs`); 0 or less: no notice. */
  readonly maxMs: number;
  /** This instance reads at least one partition. */
  readonly owning: boolean;
  /** Other live members at the last round: a lone instance has nobody to announce its leaving to. */
  readonly peers: number;
  /** Time, in ms, to the first tick of the round grid at least `minMs` from now. */
  readonly msToNextTick: (minMs: number) => number;
}

/**
 * Peers see a release only when they list, at the ticks of the round grid. So before releasing anything,
 * mark the membership `leaving`, keep reading, and resolve RELEASE_LEAD_MS before the next tick, when the
 * caller starts stopping: a release done by the tick is claimed at the tick; one that takes longer is claimed
 * within one HANDOFF_POLL_MS (round-schedule.ts) of it, since every peer saw the mark at the tick and polls until the
 * partitions are free. Resolves at once when there is nobody to tell or the wait would pass `maxMs`.
 */
export async function announceLeaving(membership: MembershipLease, notice: LeaveNotice, logger: Logger): Promise<void> {
  const { maxMs } = notice;
  if (maxMs <= 0 || !notice.owning || notice.peers === 0 || !membership.held) return;
  const began = performance.now();
  try {
    await membership.markLeaving();
  } catch (error) {
    const message = toStorageError(error).message;
    logger.warn('could not mark the membership as leaving; peers see the releases at their next round', {
      error: message,
    });
    return;
  }
  // The tick must come after the mark is stored, or the peers would not see it.
  const waitMs = notice.msToNextTick(LEAVE_NOTICE_MARGIN_MS) - RELEASE_LEAD_MS;
  if (waitMs <= 0 || performance.now() - began + waitMs > maxMs) return;
  logger.info("leaving: partitions are released at the peers' next round", { waitMs: Math.round(waitMs) });
  await new Promise((resolve) => setTimeout(resolve, waitMs));
}
