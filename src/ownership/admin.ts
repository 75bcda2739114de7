import type { ContainerClient } from '@azure/storage-blob';
import type { Checkpoint, CheckpointScope } from './checkpoint.ts';
import { blobPrefix, checkpointBlobName, ownershipBlobName, parseBlobName } from './internal/blob-names.ts';
import { EARLIEST_CHECKPOINT, parseSequenceNumber } from './internal/checkpoint-metadata.ts';
import { parseEpoch } from './internal/ownership-snapshot.ts';
import { sortPartitionIds } from './partition-order.ts';
import { statusOf, toStorageError } from './storage-errors.ts';

/** Timeout of each storage request made by the admin functions. */
export const ADMIN_REQUEST_TIMEOUT_MS = 30_000;

/** One partition's ownership blob as operators see it. */
export interface PartitionOwnershipInfo {
  readonly partitionId: string;
  /** `ownerid` metadata; undefined when empty (released) or absent. */
  readonly ownerId: string | undefined;
  /** `leased` while an instance holds it; `available`, `expired`, `broken` or `breaking` otherwise. */
  readonly leaseState: string;
  /** Owner level of the latest claim (our `epoch` key); undefined for blobs written by the Azure SDKs. */
  readonly epoch: number | undefined;
  readonly lastModified: Date | undefined;
}

/** A checkpoint as listed for operators: `problem` says why a blob could not be read as a checkpoint. */
export interface CheckpointInfo extends Checkpoint {
  readonly problem?: string;
}

/** Where to move checkpoints. Checkpoints mean "processed up to and including"; reading resumes after them. */
export type ResetTarget =
  | { readonly kind: 'earliest' }
  | { readonly kind: 'latest' }
  | { readonly kind: 'time'; readonly time: Date }
  | { readonly kind: 'sequenceNumber'; readonly sequenceNumber: number; readonly offset?: string };

/**
 * Turns a target into the checkpoint to write, with the hub's help: for `latest`, the partition's last
 * enqueued sequence number and offset; for `time`, the last event enqueued before the time; for a sequence
 * number without an offset, the caller decides what the number means (the CLI reads `--to N` as "N is read
 * next" and returns event N − 1 with its offset). A sequence number given *with* an offset is written as is.
 */
export type ResolveCheckpoint = (
  partitionId: string,
  target: ResetTarget,
) => Promise<{ sequenceNumber: number; offset: string }>;

export interface ResetOptions {
  /** Partitions to reset. Default: every partition that has an ownership or checkpoint blob. */
  readonly partitions?: readonly string[];
  /**
   * Reset even while instances hold leases: their leases are broken first, so they stop without writing. Default false.
   */
  readonly force?: boolean;
  /** Needed for `latest`, `time`, and a sequence number without an offset. `earliest` needs no hub. */
  readonly resolve?: ResolveCheckpoint;
}

/** The reset was refused because running instances own targeted partitions. */
export class ResetRefusedError extends Error {
  override readonly name = 'ResetRefusedError';
  constructor(readonly owners: ReadonlyArray<{ partitionId: string; ownerId: string | undefined }>) {
    const list = owners.map((o) => `${o.partitionId} (owner ${o.ownerId ?? 'unknown'})`).join(', ');
    super(
      `refusing to reset checkpoints: partitions ${list} are leased by running instances; stop them first, or pass ` +
        `force to break their leases`,
    );
  }
}

/** Every ownership blob of the scope, in partition order. */
export async function listOwnership(
  containerClient: ContainerClient,
  scope: CheckpointScope,
): Promise<PartitionOwnershipInfo[]> {
  const result: PartitionOwnershipInfo[] = [];
  await eachBlob(containerClient, blobPrefix(scope, 'ownership'), (name, metadata, props) => {
    const parsed = parseBlobName(scope, name);
    if (parsed?.kind !== 'ownership') return;
    result.push({
      partitionId: parsed.id,
      ownerId: metadata.ownerid || undefined,
      leaseState: props.leaseState ?? 'available',
      epoch: parseEpoch(metadata.epoch),
      lastModified: props.lastModified,
    });
  });
  return sortBy(result);
}

/** Every checkpoint blob of the scope, in partition order; unreadable ones are listed with a `problem`. */
export async function listCheckpoints(
  containerClient: ContainerClient,
  scope: CheckpointScope,
): Promise<CheckpointInfo[]> {
  const result: CheckpointInfo[] = [];
  await eachBlob(containerClient, blobPrefix(scope, 'checkpoint'), (name, metadata, props) => {
    const parsed = parseBlobName(scope, name);
    if (parsed?.kind !== 'checkpoint') return;
    const sequenceNumber = parseSequenceNumber(metadata.sequencenumber);
    const offset = metadata.offset;
    const problem =
      sequenceNumber === undefined ? 'no numeric sequencenumber' : offset === undefined ? 'no offset' : undefined;
    result.push({
      partitionId: parsed.id,
      sequenceNumber: sequenceNumber ?? Number.NaN,
      offset: offset ?? '',
      updatedOn: props.lastModified,
      ...(problem ? { problem } : {}),
    });
  });
  return sortBy(result);
}

/**
 * Moves checkpoints to `target`, backwards included: the one path that may. Refused with a
 * {@link ResetRefusedError} while a targeted partition is leased, unless `force`, which breaks those leases
 * first (the owners' renewals then fail and they stop reading without writing a checkpoint; another
 * claim then reads from the reset position). Returns the checkpoints written.
 */
export async function resetCheckpoints(
  containerClient: ContainerClient,
  scope: CheckpointScope,
  target: ResetTarget,
  options: ResetOptions = {},
): Promise<Checkpoint[]> {
  const ownership = await listOwnership(containerClient, scope);
  const partitions = sortPartitionIds(
    new Set(
      options.partitions ?? [
        ...ownership.map((o) => o.partitionId),
        ...(await listCheckpoints(containerClient, scope)).map((c) => c.partitionId),
      ],
    ),
  );
  if (partitions.length === 0)
    throw new Error(
      'no partitions to reset: none has an ownership or checkpoint blob yet; name them with `partitions`',
    );
  const targeted = new Set(partitions);
  const leased = ownership.filter(
    (o) => targeted.has(o.partitionId) && (o.leaseState === 'leased' || o.leaseState === 'breaking'),
  );
  if (leased.length > 0 && !options.force)
    throw new ResetRefusedError(leased.map((o) => ({ partitionId: o.partitionId, ownerId: o.ownerId })));

  // Resolve everything before touching anything, so a failing hub leaves the store as it was.
  const positions = new Map<string, { sequenceNumber: number; offset: string }>();
  for (const pid of partitions) positions.set(pid, await resolvePosition(pid, target, options.resolve));
  for (const o of leased) {
    const lease = containerClient.getBlobClient(ownershipBlobName(scope, o.partitionId)).getBlobLeaseClient();
    try {
      await lease.breakLease(0, { abortSignal: AbortSignal.timeout(ADMIN_REQUEST_TIMEOUT_MS) });
    } catch (error) {
      if (statusOf(error) !== 409) throw toStorageError(error); // 409: no lease any more, nothing to break
    }
  }
  const written: Checkpoint[] = [];
  for (const pid of partitions) {
    const { sequenceNumber, offset } = positions.get(pid)!;
    const metadata = { sequencenumber: String(sequenceNumber), offset };
    try {
      await containerClient
        .getBlockBlobClient(checkpointBlobName(scope, pid))
        .upload('', 0, { metadata, abortSignal: AbortSignal.timeout(ADMIN_REQUEST_TIMEOUT_MS) });
    } catch (error) {
      throw toStorageError(error);
    }
    written.push({ partitionId: pid, sequenceNumber, offset });
  }
  return written;
}

async function resolvePosition(
  partitionId: string,
  target: ResetTarget,
  resolve: ResolveCheckpoint | undefined,
): Promise<{ sequenceNumber: number; offset: string }> {
  if (target.kind === 'earliest') return { ...EARLIEST_CHECKPOINT };
  if (target.kind === 'sequenceNumber') {
    if (!Number.isSafeInteger(target.sequenceNumber) || target.sequenceNumber < -1)
      throw new RangeError(`sequence number must be an integer ≥ -1, got ${target.sequenceNumber}`);
    if (target.offset !== undefined) return { sequenceNumber: target.sequenceNumber, offset: target.offset };
  }
  if (!resolve)
    throw new Error(
      `resetting to ${target.kind === 'sequenceNumber' ? 'a sequence number without an offset' : target.kind} needs ` +
        `the hub: pass resolve (or an offset)`,
    );
  const position = await resolve(partitionId, target);
  if (
    !Number.isSafeInteger(position.sequenceNumber) ||
    position.sequenceNumber < -1 ||
    typeof position.offset !== 'string'
  ) {
    throw new Error(`resolve returned an invalid checkpoint for partition ${partitionId}`);
  }
  return position;
}

async function eachBlob(
  container: ContainerClient,
  prefix: string,
  visit: (name: string, metadata: Record<string, string>, props: { leaseState?: string; lastModified?: Date }) => void,
): Promise<void> {
  try {
    for await (const item of container.listBlobsFlat({
      prefix,
      includeMetadata: true,
      abortSignal: AbortSignal.timeout(ADMIN_REQUEST_TIMEOUT_MS),
    })) {
      visit(item.name, item.metadata ?? {}, item.properties);
    }
  } catch (error) {
    throw toStorageError(error);
  }
}

function sortBy<T extends { partitionId: string }>(items: T[]): T[] {
  const order = new Map(sortPartitionIds(items.map((i) => i.partitionId)).map((id, i) => [id, i]));
  return items.sort((a, b) => order.get(a.partitionId)! - order.get(b.partitionId)!);
}
