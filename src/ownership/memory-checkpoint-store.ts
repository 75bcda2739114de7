import {
  CheckpointFencedError,
  keepsStored,
  type Checkpoint,
  type CheckpointWriteOptions,
  type CheckpointScope,
  type CheckpointStore,
  type OwnershipFence,
} from './checkpoint.ts';
import { blobPrefix } from './internal/blob-names.ts';
import { comparePartitionIds } from './partition-order.ts';

/**
 * Keeps checkpoints in process memory: for tests, and for single-instance use where losing the position on
 * restart is acceptable. Same rules as the blob store: never moves backwards, refuses writes whose fence is
 * no longer valid.
 */
export class MemoryCheckpointStore implements CheckpointStore {
  readonly #checkpoints = new Map<string, Map<string, Checkpoint>>();

  async read(scope: CheckpointScope, partitionId: string): Promise<Checkpoint | undefined> {
    return this.#scope(scope).get(partitionId);
  }

  async list(scope: CheckpointScope): Promise<Checkpoint[]> {
    return [...this.#scope(scope).values()].sort((a, b) => comparePartitionIds(a.partitionId, b.partitionId));
  }

  async write(
    scope: CheckpointScope,
    checkpoint: Checkpoint,
    fence?: OwnershipFence,
    options?: CheckpointWriteOptions,
  ): Promise<void> {
    if (fence && !fence.isValid()) {
      throw new CheckpointFencedError(
        `checkpoint for partition ${checkpoint.partitionId} refused: ownership may have lapsed`,
      );
    }
    const partitions = this.#scope(scope);
    const stored = partitions.get(checkpoint.partitionId);
    if (keepsStored(stored?.sequenceNumber, checkpoint.sequenceNumber, options)) return;
    partitions.set(checkpoint.partitionId, {
      partitionId: checkpoint.partitionId,
      sequenceNumber: checkpoint.sequenceNumber,
      offset: checkpoint.offset,
      updatedOn: new Date(),
    });
  }

  /** Sets a checkpoint unconditionally, backwards included: the reset tool's path, and test set-up. */
  reset(scope: CheckpointScope, checkpoint: Checkpoint): void {
    this.#scope(scope).set(checkpoint.partitionId, { ...checkpoint, updatedOn: new Date() });
  }

  #scope(scope: CheckpointScope): Map<string, Checkpoint> {
    const key = blobPrefix(scope);
    let partitions = this.#checkpoints.get(key);
    if (!partitions) {
      partitions = new Map();
      this.#checkpoints.set(key, partitions);
    }
    return partitions;
  }
}
