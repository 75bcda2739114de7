import { performance } from 'node:perf_hooks';
import type { BlockBlobClient, ContainerClient } from '@azure/storage-blob';
import { BlobCheckpointStore as SdkBlobCheckpointStore } from '@azure/eventhubs-checkpointstore-blob';
import {
  CheckpointFencedError,
  keepsStored,
  UnusableCheckpointError,
  type Checkpoint,
  type CheckpointWriteOptions,
  type CheckpointScope,
  type CheckpointStore,
  type OwnershipFence,
} from './checkpoint.ts';
import { blobPrefix, checkpointBlobName, ownershipBlobName, parseBlobName } from './internal/blob-names.ts';
import { isConflict, isLeaseGone, isNotFound, toStorageError } from './storage-errors.ts';
import { sortPartitionIds } from './partition-order.ts';
import { parseSequenceNumber } from './internal/checkpoint-metadata.ts';

/** Timeout of each storage request made by the store. */
export const DEFAULT_CHECKPOINT_REQUEST_TIMEOUT_MS = 10_000;
/** How often a write re-reads and retries after another writer changed the blob under it. */
export const DEFAULT_CHECKPOINT_CONFLICT_RETRIES = 5;
/**
 * A fenced write skips its own lease renewal only while at least this much of the lease, in ms, is left since
 * the last renewal (less the safety margin); the write must then complete within what is left. With the
 * default lease (15 s, renewed every 5 s, 2 s margin) 8 to 13 s are left between renewals.
 */
export const UNRENEWED_WRITE_MIN_MS = 5_000;

export interface BlobCheckpointStoreOptions {
  /**
   * Timeout of each storage request, in ms. Default 10000. Keep it below the lease duration (15 s at the
   * least): a fenced write is sent right after a lease renewal, so a write that completes within this time
   * lands while the lease is still ours.
   */
  readonly requestTimeoutMs?: number;
  /** How many times a write re-reads the blob and retries after losing an ETag race. Default 5. */
  readonly maxConflictRetries?: number;
}

/**
 * Checkpoints in Azure Blob Storage, in the layout of the Azure SDK checkpoint stores (JS, .NET, Java,
 * Python, Go): an empty blob `<fqns>/<hub>/<cg>/checkpoint/<pid>` (lower-cased) whose metadata holds
 * `sequencenumber` and `offset` as decimal strings. Processors built on those SDKs read what this writes,
 * and the other way round. `<fqns>` is written as the JS SDK spells it (the host, without a port); the
 * Python SDK's `host:port` spelling is read too when the scope names it (`alternateNamespaces`).
 *
 * Fencing (see docs/ownership.md): the lease is on the ownership blob, not on this one, so a write cannot
 * carry it. A fenced write therefore (1) checks `fence.isValid()`, (2) renews the ownership lease with the
 * fence's lease id, which the service refuses (409/412) once another instance holds the lease, and
 * (3) writes conditionally on the checkpoint blob's ETag. After a successful renewal the lease is ours for
 * at least the full lease duration, so the write lands inside it unless it is delayed longer than that.
 * Step (2) is skipped while the fence says enough of the lease is left since the coordinator's last
 * renewal and the ETag is the one this store last read or wrote (see #proveOwnership), and the blob is read
 * before a write only when this store does not know its ETag: a steady checkpoint is one request.
 */
export class BlobCheckpointStore implements CheckpointStore {
  readonly #container: ContainerClient;
  readonly #sdkStore: SdkBlobCheckpointStore;
  readonly #requestTimeoutMs: number;
  readonly #maxConflictRetries: number;
  /**
   * Each checkpoint blob as this store last read or wrote it (its ETag above all), by blob name: the next
   * write is conditional on it instead of reading the blob first; null: the blob did not exist. One small
   * entry per partition ever read or written.
   */
  readonly #known = new Map<string, StoredCheckpoint | null>();

  constructor(containerClient: ContainerClient, options: BlobCheckpointStoreOptions = {}) {
    this.#container = containerClient;
    this.#sdkStore = new SdkBlobCheckpointStore(containerClient);
    this.#requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_CHECKPOINT_REQUEST_TIMEOUT_MS;
    this.#maxConflictRetries = options.maxConflictRetries ?? DEFAULT_CHECKPOINT_CONFLICT_RETRIES;
  }

  /**
   * The partition's checkpoint under our spelling of the namespace; when there is none, the first found
   * under `scope.alternateNamespaces` (another SDK's spelling, see namespace-spellings.ts): one request when
   * ours exists, one more per alternate spelling otherwise.
   */
  async read(scope: CheckpointScope, partitionId: string): Promise<Checkpoint | undefined> {
    let name = checkpointBlobName(scope, partitionId);
    let stored = await this.#readBlob(this.#container.getBlockBlobClient(name), name);
    for (const alternate of stored ? [] : alternateScopes(scope)) {
      const alternateName = checkpointBlobName(alternate, partitionId);
      stored = await this.#readBlob(this.#container.getBlockBlobClient(alternateName), alternateName);
      if (stored) {
        name = alternateName;
        break;
      }
    }
    if (!stored) return undefined;
    // A blob with unusable metadata is an error, not "no checkpoint": starting from the default position
    // instead would silently skip or replay events. The SDK's listCheckpoints refuses such blobs too.
    if (stored.sequenceNumber === undefined || stored.offset === undefined) {
      throw new UnusableCheckpointError(
        partitionId,
        `checkpoint blob '${name}' lacks a numeric 'sequencenumber' or an 'offset'`,
      );
    }
    return {
      partitionId,
      sequenceNumber: stored.sequenceNumber,
      offset: stored.offset,
      updatedOn: stored.lastModified,
    };
  }

  /**
   * Lists through the SDK's own `listCheckpoints`, the reference reader of this layout: our spelling of the
   * namespace, then each alternate spelling for the partitions still missing.
   */
  async list(scope: CheckpointScope): Promise<Checkpoint[]> {
    const byId = new Map<string, Checkpoint>();
    for (const s of [scope, ...alternateScopes(scope)]) {
      let listed;
      try {
        listed = await this.#sdkStore.listCheckpoints(s.fullyQualifiedNamespace, s.eventHubName, s.consumerGroup, {
          abortSignal: AbortSignal.timeout(this.#requestTimeoutMs),
        });
      } catch (error) {
        throw toStorageError(error);
      }
      for (const c of listed) {
        if (!byId.has(c.partitionId))
          byId.set(c.partitionId, {
            partitionId: c.partitionId,
            sequenceNumber: c.sequenceNumber,
            offset: String(c.offset),
          });
      }
    }
    return sortPartitionIds(byId.keys()).map((id) => byId.get(id)!);
  }

  /**
   * Every checkpoint of the consumer group in one listing, with when each was last written: one storage
   * request whatever the partition count (the hub-wide lag reads this every round), plus one per alternate
   * spelling of the namespace when the scope has any (partitions found under ours win). Blobs whose metadata
   * is unusable are left out (their partition's lag is then unknown); `read` reports them as errors.
   */
  async readAll(scope: CheckpointScope, signal?: AbortSignal): Promise<Checkpoint[]> {
    const byId = new Map<string, Checkpoint>();
    for (const s of [scope, ...alternateScopes(scope)]) {
      try {
        const blobs = this.#container.listBlobsFlat({
          prefix: blobPrefix(s, 'checkpoint'),
          includeMetadata: true,
          abortSignal: signal ?? AbortSignal.timeout(this.#requestTimeoutMs),
        });
        for await (const blob of blobs) {
          const parsed = parseBlobName(s, blob.name);
          const sequenceNumber = parseSequenceNumber(blob.metadata?.sequencenumber);
          const offset = blob.metadata?.offset;
          if (parsed?.kind !== 'checkpoint' || sequenceNumber === undefined || offset === undefined) continue;
          if (byId.has(parsed.id)) continue;
          byId.set(parsed.id, {
            partitionId: parsed.id,
            sequenceNumber,
            offset,
            updatedOn: blob.properties.lastModified,
          });
        }
      } catch (error) {
        throw toStorageError(error);
      }
    }
    return sortPartitionIds(byId.keys()).map((id) => byId.get(id)!);
  }

  async write(
    scope: CheckpointScope,
    checkpoint: Checkpoint,
    fence?: OwnershipFence,
    options?: CheckpointWriteOptions,
  ): Promise<void> {
    // -1 is "before the first event": what a first owner writes for an empty partition.
    if (!Number.isSafeInteger(checkpoint.sequenceNumber) || checkpoint.sequenceNumber < -1) {
      throw new RangeError(`checkpoint sequence number must be an integer ≥ -1, got ${checkpoint.sequenceNumber}`);
    }
    const name = checkpointBlobName(scope, checkpoint.partitionId);
    const blob = this.#container.getBlockBlobClient(name);
    const metadata = { sequencenumber: String(checkpoint.sequenceNumber), offset: String(checkpoint.offset) };
    for (let attempt = 0; ; attempt++) {
      // What this store last read or wrote is the blob as it is, unless someone else wrote since: then the
      // conditional write below fails (412/409) and the next attempt reads the blob and proves ownership.
      const known = attempt === 0 ? this.#known.get(name) : undefined;
      const stored = known === undefined ? await this.#readBlob(blob, name) : (known ?? undefined);
      if (keepsStored(stored?.sequenceNumber, checkpoint.sequenceNumber, options)) return;
      const windowMs = fence
        ? await this.#proveOwnership(scope, checkpoint.partitionId, fence, known !== undefined)
        : this.#requestTimeoutMs;
      checkFence(fence, checkpoint.partitionId);
      try {
        // AbortSignal.timeout takes whole milliseconds only.
        const options = { abortSignal: AbortSignal.timeout(Math.floor(Math.min(this.#requestTimeoutMs, windowMs))) };
        const written = stored
          ? await blob.setMetadata(metadata, { ...options, conditions: { ifMatch: stored.etag } })
          : await blob.upload('', 0, { ...options, metadata, conditions: { ifNoneMatch: '*' } });
        const { sequenceNumber, offset } = checkpoint;
        this.#remember(name, written.etag, { sequenceNumber, offset, lastModified: written.lastModified });
        return;
      } catch (error) {
        // Unknown outcome or another writer: forget what we knew, so the next write reads the blob again.
        this.#known.delete(name);
        // 412 (ETag changed) or 409 (created meanwhile): another writer moved it; re-read and compare.
        if (!isConflict(error) || attempt >= this.#maxConflictRetries) throw toStorageError(error);
      }
    }
  }

  /**
   * Proves that the lease is ours for the write that follows; resolves to how long, in ms, the write may
   * take and still land inside the lease. Renews the ownership lease with the fence's lease id, unless the
   * write is conditional on an ETag this store saw itself (`knownEtag`) and the fence says at least
   * UNRENEWED_WRITE_MIN_MS of the lease is left since its last renewal: then the coordinator's own renewal
   * is the proof, and any other writer (a new owner, the reset tool) would have changed the ETag, which
   * fails the write and sends the retry through the renewal.
   */
  async #proveOwnership(
    scope: CheckpointScope,
    partitionId: string,
    fence: OwnershipFence,
    knownEtag: boolean,
  ): Promise<number> {
    checkFence(fence, partitionId);
    const remainingMs = fence.remainingMs?.();
    if (knownEtag && remainingMs !== undefined && remainingMs >= UNRENEWED_WRITE_MIN_MS) return remainingMs;
    const lease = this.#container
      .getBlockBlobClient(ownershipBlobName(scope, partitionId))
      .getBlobLeaseClient(fence.leaseId);
    const sentAt = performance.now();
    try {
      await lease.renewLease({ abortSignal: AbortSignal.timeout(this.#requestTimeoutMs) });
    } catch (error) {
      if (isLeaseGone(error)) {
        throw new CheckpointFencedError(
          `checkpoint for partition ${partitionId} refused: the ownership lease is no longer ours`,
        );
      }
      throw toStorageError(error);
    }
    fence.renewed?.(sentAt);
    // Renewed: the lease is ours for a full lease duration (≥ 15 s), longer than one request timeout.
    return this.#requestTimeoutMs;
  }

  /** Keeps the blob's state as this store last saw it; without an ETag, forgets it (the next write reads). */
  #remember(name: string, etag: string | undefined, state: Omit<StoredCheckpoint, 'etag'>): void {
    if (etag === undefined) this.#known.delete(name);
    else this.#known.set(name, { etag, ...state });
  }

  async #readBlob(blob: BlockBlobClient, name: string): Promise<StoredCheckpoint | undefined> {
    try {
      const props = await blob.getProperties({ abortSignal: AbortSignal.timeout(this.#requestTimeoutMs) });
      const sequence = props.metadata?.sequencenumber;
      const parsed = parseSequenceNumber(sequence);
      const state = { sequenceNumber: parsed, offset: props.metadata?.offset, lastModified: props.lastModified };
      this.#remember(name, props.etag, state);
      const stored: StoredCheckpoint = { etag: props.etag ?? '*', ...state };
      return stored;
    } catch (error) {
      if (isNotFound(error)) {
        this.#known.set(name, null);
        return undefined;
      }
      throw toStorageError(error);
    }
  }
}

interface StoredCheckpoint {
  readonly etag: string;
  readonly sequenceNumber: number | undefined;
  readonly offset: string | undefined;
  readonly lastModified: Date | undefined;
}

/** The scope under each alternate spelling of its namespace (never the one we write). */
function alternateScopes(scope: CheckpointScope): CheckpointScope[] {
  const ours = scope.fullyQualifiedNamespace.toLowerCase();
  return (scope.alternateNamespaces ?? [])
    .filter((ns) => ns.toLowerCase() !== ours)
    .map((ns) => ({
      fullyQualifiedNamespace: ns,
      eventHubName: scope.eventHubName,
      consumerGroup: scope.consumerGroup,
    }));
}

function checkFence(fence: OwnershipFence | undefined, partitionId: string): void {
  if (fence && !fence.isValid()) {
    throw new CheckpointFencedError(
      `checkpoint for partition ${partitionId} refused: ownership may have lapsed (no recent lease renewal)`,
    );
  }
}
