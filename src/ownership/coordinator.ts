import type { OwnershipFence } from './checkpoint.ts';

/** What an instance holds while it owns a partition. */
export interface PartitionClaim {
  readonly partitionId: string;
  /** Owner level (epoch) the reader must open with; raised at every claim. Undefined without leases. */
  readonly ownerLevel?: number;
  /** Proof of ownership for checkpoint writes. Undefined for single-instance (static) ownership. */
  readonly fence?: OwnershipFence;
  /** Aborted the moment ownership may have been lost (renewal failed, lease lost): stop reading at once. */
  readonly lost: AbortSignal;
}

export type StopReason = 'yield' | 'shutdown' | 'lost';

/** Implemented by the receiver: the coordinator starts and stops partition pumps through it. */
export interface PartitionLifecycle {
  /** Starts reading the partition; resolves once the pump is running (not when it ends). */
  startPartition(claim: PartitionClaim): Promise<void>;
  /**
   * Stops reading. For `yield` and `shutdown`: finish the in-flight batch, write the final checkpoint,
   * then resolve; only afterwards is the lease released. For `lost`: stop at once, write nothing.
   */
  stopPartition(partitionId: string, reason: StopReason): Promise<void>;
}

/** Status events of ownership, for logs, metrics and the health check. */
export type OwnershipEvent =
  | { readonly type: 'claimed'; readonly partitionId: string; readonly ownerLevel?: number }
  | { readonly type: 'released'; readonly partitionId: string; readonly reason: StopReason }
  | { readonly type: 'renewalFailed'; readonly partitionId: string; readonly error: Error }
  | { readonly type: 'balanced'; readonly owned: readonly string[]; readonly members: number; readonly fairShare: number }
  | { readonly type: 'storageError'; readonly error: Error };

/** Decides which partitions this instance reads. */
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
