import { DEFAULT_PREFETCH_COUNT } from '../../backends/consumer.ts';

/**
 * Events all partitions of one receiver buffer ahead of their pipelines together when `prefetch_count` is
 * left at 0: 2,400, the SDK's 300 for each of 8 partitions.
 */
export const PREFETCH_BUDGET_EVENTS = 2_400;

/**
 * Events each partition may buffer ahead of the pipeline when `prefetch_count` is left at 0: an equal share
 * of `PREFETCH_BUDGET_EVENTS`, at most the SDK's 300 and at least half a batch (`maxPollEvents` / 2). Up to
 * 8 partitions each keeps 300; at 16, 150; at 32, 75; from 48 on (with batches of 100), 50 each.
 * Prefetched events are most of what a draining receiver holds, and each of them outlives several young-
 * generation collections, so the budget bounds memory and garbage-collection work as partitions are added.
 */
export function prefetchShare(partitions: number, maxPollEvents: number): number {
  const share = Math.floor(PREFETCH_BUDGET_EVENTS / Math.max(1, partitions));
  return Math.max(Math.ceil(maxPollEvents / 2), Math.min(DEFAULT_PREFETCH_COUNT, share));
}
