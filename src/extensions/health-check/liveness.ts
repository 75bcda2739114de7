import type { ReceiverStats } from '../../receiver/receiver-status.ts';

/** How long a partition may be `reading` without any progress before the process counts as wedged. 120 000 ms. */
export const DEFAULT_WEDGED_AFTER_MS = 120_000;

/** A receiver as liveness reads it: its stats, at probe time. */
export interface LivenessSource {
  stats(): ReceiverStats;
}

export interface LivenessReport {
  /** `live` unless a pump is wedged; the probe answers 200 / 503. */
  readonly status: 'live' | 'wedged';
  /** Wedged partitions by receiver id, with their seconds without progress (only when there are some). */
  readonly wedged?: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/**
 * Liveness: is the process wedged? Only a pump that is `reading` (not waiting on the pipeline, not retrying a
 * failing reader, not paused by `memory.limit_mib`) yet made no progress for `wedgedAfterMs` counts: its reads
 * always end within `poll_rate`, so nothing outside explains the silence. Outages of the hub, storage or an
 * exporter show in readiness (`HealthState`), never here: a restart would not cure them and would add re-reads.
 * A blocked event loop fails the probe by not answering it.
 */
export function liveness(receivers: ReadonlyMap<string, LivenessSource>, wedgedAfterMs: number): LivenessReport {
  const wedged: Record<string, Record<string, number>> = {};
  for (const [id, receiver] of receivers) {
    let stats: ReceiverStats;
    try {
      stats = receiver.stats();
    } catch {
      continue;
    }
    if (stats.memory?.paused) continue;
    for (const p of stats.partitions) {
      if (p.state !== 'reading' || p.idleSeconds === undefined || p.idleSeconds * 1000 < wedgedAfterMs) continue;
      (wedged[id] ??= {})[p.partitionId] = Math.round(p.idleSeconds);
    }
  }
  return Object.keys(wedged).length > 0 ? { status: 'wedged', wedged } : { status: 'live' };
}
