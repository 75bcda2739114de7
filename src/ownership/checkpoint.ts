/** A partition's durable progress: the last event whose batch the consumer resolved. */
export interface Checkpoint {
  readonly partitionId: string;
  readonly sequenceNumber: number;
  /** Decimal string, as the Azure SDKs store it. */
  readonly offset: string;
  /** When the checkpoint blob was last written, if known. */
  readonly updatedOn?: Date;
}

/** Identifies a hub's consumer group in the blob layout: `<namespace>/<hub>/<consumer group>/...`, lower-cased. */
export interface CheckpointScope {
  /** The namespace as the JS and .NET SDKs spell it in blob names: the Endpoint's host, without a port. */
  readonly fullyQualifiedNamespace: string;
  readonly eventHubName: string;
  readonly consumerGroup: string;
  /**
   * Other spellings of the namespace under which another SDK may have written this consumer group's
   * checkpoints. The Azure SDK for Python names its blobs after the Endpoint's host *and port* when the
   * connection string names a port (`127.0.0.1:5671/<hub>/...`); see `namespaceSpellings`. Checkpoints are
   * read under these, in order, only for partitions that have none under `fullyQualifiedNamespace`; they are
   * never written.
   */
  readonly alternateNamespaces?: readonly string[];
}

/**
 * Proof, at write time, that the writer still owns the partition. Blob stores pass the lease id to the
 * service (a write without the current lease fails with 412); the memory store compares tokens.
 * `undefined` only for single-instance use with no ownership coordinator.
 */
export interface OwnershipFence {
  readonly leaseId: string;
  /** Returns false when the lease may have lapsed (last renewal too old): the write is refused locally. */
  isValid(): boolean;
  /**
   * How long from now, in ms, the lease is certainly still ours: the last successful renewal was *sent* that
   * long before its expiry, less the safety margin. Absent: unknown, and a blob store renews before every
   * write. A store may then write without renewing first while enough of the lease is left (see
   * BlobCheckpointStore).
   */
  remainingMs?(): number;
  /** Tells the holder that the store renewed the lease with a request sent at `sentAt` (performance.now()). */
  renewed?(sentAt: number): void;
}

export class CheckpointFencedError extends Error {
  override readonly name = 'CheckpointFencedError';
}

/**
 * A checkpoint blob exists but its metadata cannot be used (no numeric `sequencenumber`, no `offset`):
 * not "no checkpoint", since starting from the default position would silently skip or replay events.
 */
export class UnusableCheckpointError extends Error {
  override readonly name = 'UnusableCheckpointError';
  constructor(
    readonly partitionId: string,
    message: string,
  ) {
    super(message);
  }
}

export interface CheckpointStore {
  read(scope: CheckpointScope, partitionId: string): Promise<Checkpoint | undefined>;
  list(scope: CheckpointScope): Promise<Checkpoint[]>;
  /**
   * Writes the checkpoint. Never moves backwards: a checkpoint whose sequence number is below the stored
   * one is ignored, unless `options.replacing` names the stored sequence number (a deliberate reset of a
   * checkpoint known to be wrong; a concurrent write of another value still wins). With a fence, refuses
   * (CheckpointFencedError) when the fence is no longer valid.
   */
  write(
    scope: CheckpointScope,
    checkpoint: Checkpoint,
    fence?: OwnershipFence,
    options?: CheckpointWriteOptions,
  ): Promise<void>;
}

export interface CheckpointWriteOptions {
  /** The stored sequence number this write may replace even when moving backwards. */
  readonly replacing?: number;
}

/** True when a write of `next` must leave `stored` as it is (never backwards, except a named replacement). */
export function keepsStored(stored: number | undefined, next: number, options?: CheckpointWriteOptions): boolean {
  if (stored === undefined) return false;
  if (options?.replacing !== undefined && stored === options.replacing) return false;
  return stored >= next;
}
