import { DEFAULT_PREFETCH_COUNT, PREFETCH_BUDGET_EVENTS } from '../../backends/consumer.ts';

/**
 * Events each partition may buffer ahead of the pipeline when `prefetch_count` is left at 0: an equal share
 * of one budget for the whole receiver (`PREFETCH_BUDGET_EVENTS`), at most the SDK's 300 and at least one
 * batch (`maxPollEvents`). Up to 8 partitions each keeps 300; at 16, 150; from 24 on, one batch each.
 * Prefetched events are most of what a draining receiver holds, and each of them outlives several young-
 * generation collections, so the budget bounds memory and garbage-collection work as partitions are added.
 */
export function prefetchShare(partitions: number, maxPollEvents: number): number {
  const share = Math.floor(PREFETCH_BUDGET_EVENTS / Math.max(1, partitions));
  return Math.max(Math.ceil(maxPollEvents / 2), Math.min(DEFAULT_PREFETCH_COUNT, share));
}
