import type { PartitionEndReason, StopReason } from '../ownership/coordinator.ts';
import type { MemoryGuardStats } from './memory-guard.ts';

/**
 * What a partition this instance holds is doing. `reading`: the reader works. `retrying`: its reader
 * fails (`cause: 'reader'`, `permanent` when the configuration is at fault, with the key to fix) or the
 * pipeline refuses its batch and the partition holds it (`cause: 'export'`). `waiting` (`cause: 'export'`):
 * the batch handed to the pipeline is not delivered yet after DELIVERY_WAIT_REPORT_MS, whichever stage holds
 * it (a batch processor, an exporter retrying inside its `retry_on_failure`); `since` is the hand-over.
 * `released`: handed back.
 */
export interface PartitionState {
  readonly state: 'reading' | 'retrying' | 'waiting' | 'released';
  /** When this state began (ms since the epoch). */
  readonly since: number;
  readonly cause?: 'reader' | 'export';
  readonly permanent?: boolean;
  readonly error?: Error;
  readonly configKey?: string;
}

/** Status events of a receiver, a discriminated union (nats.js style), for logs, metrics and health. */
export type ReceiverStatus =
  | { readonly type: 'hubReached'; readonly partitionIds: readonly string[] }
  | { readonly type: 'hubUnreachable'; readonly error: Error }
  | {
      readonly type: 'partitionOpened';
      readonly partitionId: string;
      readonly startSequenceNumber?: number;
      readonly ownerLevel?: number;
    }
  | {
      readonly type: 'partitionClosed';
      readonly partitionId: string;
      readonly reason: StopReason | PartitionEndReason;
      readonly error?: Error;
    }
  | ({ readonly type: 'partitionState'; readonly partitionId: string } & PartitionState)
  | {
      readonly type: 'partitionStartFailed';
      readonly partitionId: string;
      readonly error: Error;
      readonly retryInMs: number;
    }
  | {
      readonly type: 'exported';
      readonly partitionId: string;
      /** Log records of the batch. */
      readonly records: number;
      /** Metric points and spans of the batch (0 when the receiver feeds logs only). */
      readonly metricPoints?: number;
      readonly spans?: number;
      readonly events: number;
      readonly durationMs: number;
    }
  | {
      readonly type: 'exportFailed';
      readonly partitionId: string;
      /** Log records of the batch. */
      readonly records: number;
      readonly metricPoints?: number;
      readonly spans?: number;
      readonly error: Error;
      readonly permanent: boolean;
    }
  | { readonly type: 'deadLettered'; readonly partitionId: string; readonly events: number; readonly error: Error }
  | { readonly type: 'checkpointWritten'; readonly partitionId: string; readonly sequenceNumber: number }
  | { readonly type: 'checkpointFailed'; readonly partitionId: string; readonly error: Error }
  | {
      readonly type: 'retentionGap';
      readonly partitionId: string;
      readonly eventsLost: number;
      readonly checkpointSequenceNumber: number;
      readonly firstRetainedSequenceNumber: number;
    }
  /** Capture backfill: the partition's next events expired from the hub and are read from Capture files. */
  | {
      readonly type: 'backfillStarted';
      readonly partitionId: string;
      readonly fromSequenceNumber: number;
      readonly toSequenceNumber: number;
    }
  /** The backfill reached the hub's first retained event; `events` came from Capture. */
  | { readonly type: 'backfillFinished'; readonly partitionId: string; readonly events: number }
  /** Expired events Capture does not hold (a deleted file, a window not written yet): lost, with their exact range. */
  | {
      readonly type: 'captureGap';
      readonly partitionId: string;
      readonly fromSequenceNumber: number;
      readonly toSequenceNumber: number;
      readonly events: number;
    }
  | { readonly type: 'backendDisconnected'; readonly partitionId?: string; readonly error: Error }
  | { readonly type: 'backendRecovered'; readonly partitionId?: string }
  | { readonly type: 'storageFailing'; readonly error: Error }
  | { readonly type: 'storageRecovered' }
  | { readonly type: 'standby' }
  /** `memory.limit_mib`: memory stayed above the limit after a collection, so every partition pauses reading. */
  | { readonly type: 'memoryPaused'; readonly usageBytes: number; readonly limitBytes: number }
  /** `memory.limit_mib`: memory is at or below the limit again; partitions read on. */
  | { readonly type: 'memoryResumed'; readonly usageBytes: number; readonly limitBytes: number }
  /** Partitions held by a live owner outside this fleet (partition id → owner id), when that set changes. */
  | { readonly type: 'foreignOwners'; readonly partitions: ReadonlyMap<string, string> };

/** Per-partition gauges, read at scrape time. */
export interface PartitionStats {
  readonly partitionId: string;
  /** Last sequence number handed to the consumer and resolved. -1 before the first batch. */
  readonly lastProcessedSequenceNumber: number;
  readonly lagEvents: number;
  readonly lagSeconds: number;
  /** Seconds since the last successful checkpoint write; undefined before the first. */
  readonly checkpointAgeSeconds?: number;
  /** lagSeconds / retention seconds, when the retention is configured. 1.0 means data is about to expire unread. */
  readonly retentionUsedRatio?: number;
  /** Reading or retrying (and why); see PartitionState. */
  readonly state: PartitionState['state'];
  /** While the partition reads expired events from Capture: the range and what is left of it. */
  readonly backfill?: {
    readonly fromSequenceNumber: number;
    readonly toSequenceNumber: number;
    readonly remainingEvents: number;
  };
  /** `backfill.remainingEvents`, as a gauge. */
  readonly backfillRemainingEvents?: number;
  readonly stateSeconds: number;
  /** Seconds since the pump last made progress (a receive completed, a batch delivered, a state change). */
  readonly idleSeconds?: number;
  /**
   * Events this partition may buffer ahead of the pipeline: `prefetch_count` (at least `max_poll_events`),
   * or with `prefetch_count: 0` its share of the receiver's budget (docs/configuration.md#prefetch).
   */
  readonly prefetch?: number;
}

/** Monotonic counters since start, read at scrape time. */
export interface ReceiverCounters {
  readonly eventsReceived: number;
  readonly bytesReceived: number;
  /** Log records decoded from events. */
  readonly recordsDecoded: number;
  readonly eventsFailedDecode: number;
  /** Log records the pipeline accepted. */
  readonly recordsAccepted: number;
  /** Log records the pipeline refused for good (dead-lettered or dropped). */
  readonly recordsRefused: number;
  /** Metric points decoded from events (only when the receiver feeds a metrics pipeline). */
  readonly metricPointsDecoded: number;
  readonly metricPointsAccepted: number;
  readonly metricPointsRefused: number;
  /** Spans decoded from events (only when the receiver feeds a traces pipeline). */
  readonly spansDecoded: number;
  readonly spansAccepted: number;
  readonly spansRefused: number;
  /**
   * Decoded items of a signal no pipeline of the receiver takes (log records of a receiver listed only by a
   * metrics pipeline): counted and logged, not exported, checkpointed past.
   */
  readonly itemsWithoutPipeline: number;
  readonly eventsDeadLettered: number;
  readonly checkpointWrites: number;
  readonly checkpointFailures: number;
  readonly backendReconnects: number;
  readonly eventsLostToRetention: number;
  /** Events read from Capture files because they had expired from the hub (`capture`). */
  readonly eventsBackfilled: number;
  /** Expired events Capture did not hold either (also counted in eventsLostToRetention). */
  readonly eventsMissingFromCapture: number;
  /** Events of refused batches dropped because `dead_letter.drop` is set. */
  readonly eventsDropped: number;
  /** Attempts at a refused batch the partition held (no dead-letter store: the hub is the buffer). */
  readonly exportHolds: number;
  /** Partition starts that found a checkpoint beyond the partition's last event (`on_invalid_checkpoint`). */
  readonly invalidCheckpoints: number;
  /** Events decoded (and their log records encoded) on decode threads (`decode_workers`). */
  readonly eventsDecodedOffThread: number;
  /** Events a decode thread failed (it died, or the pool was closed) and the pipeline thread decoded instead. */
  readonly eventsDecodeFallbacks: number;
  /** Times new claims were paused because lease renewals were late (lease ownership; docs/ownership.md). */
  readonly claimPauses: number;
}

/**
 * Restarts of partition readers by reason: `transient`, `permanent`, `stalled` (reopened by the pump), `ownershipLost`,
 * `error`, `startFailed` (by the owner).
 */
export type RestartReason =
  | 'transient'
  | 'permanent'
  | 'stalled'
  | 'ownershipLost'
  | 'fenced'
  | 'error'
  | 'startFailed';

export interface ReceiverStats {
  readonly counters: ReceiverCounters;
  readonly partitions: readonly PartitionStats[];
  readonly restarts: Readonly<Record<RestartReason, number>>;
  /** Partitions this instance released and did not take back, with why (state `released`). */
  readonly released: readonly { readonly partitionId: string; readonly reason: string; readonly seconds: number }[];
  /** The memory guard's state when `memory.limit_mib` is set. */
  readonly memory?: MemoryGuardStats;
  /**
   * Lease ownership: true while this instance starts no new claim because its lease renewals are late
   * (the leases it holds come first); false once it claims again. Absent until the first pause.
   */
  readonly claimsPaused?: boolean;
}

/**
 * One partition of the hub as the checkpoint store and the hub report it, whoever owns it (hub-wide lag).
 * Read in the background every lag-monitor interval, not at scrape time.
 *
 * The lag here is "events not yet exported or not yet checkpointed": checkpoints trail processing by up to
 * the owner's `checkpoint.interval`, so it may exceed the owner's own `PartitionStats.lagEvents` by up to
 * one checkpoint interval's worth of events.
 */
export interface HubPartitionLag {
  readonly partitionId: string;
  /** Owner id holding the partition's lease; `''` when nobody holds it (free, expired) or owners are unknown. */
  readonly owner: string;
  /** Sequence number in the partition's checkpoint; undefined when it has none. */
  readonly checkpointSequenceNumber?: number;
  /** Sequence number of the partition's newest event; -1 when the partition is empty. */
  readonly lastEnqueuedSequenceNumber: number;
  /**
   * Last enqueued minus checkpoint, at least 0; 0 for an empty partition. Undefined when the partition
   * has no checkpoint (where reading starts then depends on the owner's `start_position`).
   */
  readonly lagEvents?: number;
  /** Seconds since the checkpoint was last written (now minus the store's last-modified time), when known. */
  readonly checkpointAgeSeconds?: number;
  /** Enqueued time of the newest event; undefined when the partition is empty. */
  readonly lastEnqueuedTime?: Date;
  /** When these values were read successfully. */
  readonly refreshedAt: Date;
  /** True when the last refresh of this partition failed: the values are the last good ones, from `refreshedAt`. */
  readonly stale: boolean;
}
