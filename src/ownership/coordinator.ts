import type { OwnershipFence } from './checkpoint.ts';

/** What an instance holds while it owns a partition. */
export interface PartitionClaim {
  readonly partitionId: string;
  /** Owner level (epoch) the reader must open with; raised at every claim. Undefined without leases. */
  readonly ownerLevel?: number;
  /** Proof of ownership for checkpoint writes. Undefined for single-instance (static) ownership. */
  readonly fence?: OwnershipFence;
}

/**
 * Why the owner stops a partition. `yield` and `shutdown` are graceful (finish the batch in flight, write
 * the final checkpoint); `lost` means the lease may be gone: stop at once and write nothing.
 */
export type StopReason = 'yield' | 'shutdown' | 'lost';

/**
 * How a partition's reading ended. `stopped`: by `stop()`. The others end it by themselves:
 * `ownershipLost`: the hub disconnected the reader for a higher owner level (`amqp:link:stolen`);
 * `fenced`: a checkpoint write was refused because the lease is gone; `error`: anything unexpected.
 * A reader that fails transiently or permanently does not end: the pump retries it with backoff.
 */
export type PartitionEndReason = 'stopped' | 'ownershipLost' | 'fenced' | 'error';

export interface PartitionEnd {
  readonly reason: PartitionEndReason;
  readonly error?: Error;
}

/** A partition being read, as its owner holds it (the pump manager's view of one pump). */
export interface PartitionHandle {
  /** Resolves once reading ended, by `stop()` or by itself, after its final checkpoint; never rejects. */
  readonly ended: Promise<PartitionEnd>;
  /**
   * Stops reading and resolves when it ended. `yield`/`shutdown`: graceful, bounded by the receiver's
   * shutdown timeout. `lost`: at once, writes nothing. Calling it again returns the same end.
   */
  stop(reason: StopReason): Promise<PartitionEnd>;
}

/** Implemented by the receiver: the coordinator starts partitions through it and owns the handles. */
export interface PartitionLifecycle {
  /**
   * Starts reading the partition; resolves with its handle once the pump runs (not when it ends).
   * `signal` aborts a start in progress (its deadline, a lost lease, shutdown); the start then rejects
   * and leaves nothing running.
   */
  startPartition(claim: PartitionClaim, signal: AbortSignal): Promise<PartitionHandle>;
}

/** Status events of ownership, for logs, metrics and the health check. */
export type OwnershipEvent =
  | { readonly type: 'claimed'; readonly partitionId: string; readonly ownerLevel?: number }
  | { readonly type: 'released'; readonly partitionId: string; readonly reason: StopReason | PartitionEndReason }
  | { readonly type: 'renewalFailed'; readonly partitionId: string; readonly error: Error }
  | { readonly type: 'startFailed'; readonly partitionId: string; readonly error: Error; readonly retryInMs: number }
  | { readonly type: 'ended'; readonly partitionId: string; readonly end: PartitionEnd; readonly retryInMs: number }
  | {
      readonly type: 'balanced';
      readonly owned: readonly string[];
      readonly members: number;
      readonly fairShare: number;
    }
  | { readonly type: 'storageError'; readonly error: Error }
  /**
   * Lease renewals are late (`lateMs`: the oldest in flight, or a recent slow or failed one): no new claim
   * starts until they are back in time, so that the storage service's capacity goes to the leases held.
   * Told once per pause; `claimsResumed` when claiming starts again.
   */
  | { readonly type: 'claimsPaused'; readonly lateMs: number; readonly owned: number; readonly deferred: number }
  | { readonly type: 'claimsResumed' }
  /**
   * The partitions a live processor outside this fleet holds (an Azure SDK processor's ETag claim), by
   * partition id → its owner id; told when the set changes (empty once none is left). They are not read here.
   */
  | { readonly type: 'foreignOwners'; readonly partitions: ReadonlyMap<string, string> };

/** Decides which partitions this instance reads, and owns their handles. */
export interface OwnershipCoordinator {
  readonly ownerId: string;
  /** Starts the background claiming loop; returns quickly. */
  start(lifecycle: PartitionLifecycle): Promise<void>;
  /** Partitions currently owned by this instance. */
  owned(): readonly string[];
  /** Stop claiming, stop every owned partition (`shutdown`), release leases and membership. Idempotent. */
  shutdown(): Promise<void>;
  onEvent?(listener: (event: OwnershipEvent) => void): void;
}
