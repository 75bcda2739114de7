import type { ContainerClient } from '@azure/storage-blob';
import type { CheckpointScope } from '../checkpoint.ts';
import { blobPrefix, parseBlobName } from './blob-names.ts';
import { LEAVING_METADATA_KEY } from './membership-lease.ts';

/** One listing of a consumer group's ownership and membership blobs. */
export interface OwnershipSnapshot {
  /** Owner ids whose membership lease is held, except those leaving. */
  readonly members: string[];
  /** Owner ids whose membership lease is held and marked `leaving`: shutting down, about to release. */
  readonly leaving: string[];
  /** Partition id → `ownerid` metadata while the ownership lease is held (`''` when unknown); absent when free. */
  readonly holders: Map<string, string>;
  /** Partition id → the `epoch` metadata key, where present. */
  readonly epochs: Map<string, number>;
}

/**
 * Lists everything under `<fqns>/<hub>/<cg>/` in one paged call. A lease is "held" in state `leased` or
 * `breaking` (a breaking lease still refuses acquisition until its break period ends); `available`,
 * `expired` and `broken` are free.
 */
export async function readOwnershipSnapshot(container: ContainerClient, scope: CheckpointScope, signal: AbortSignal): Promise<OwnershipSnapshot> {
  const snapshot: OwnershipSnapshot = { members: [], leaving: [], holders: new Map(), epochs: new Map() };
  for await (const item of container.listBlobsFlat({ prefix: blobPrefix(scope), includeMetadata: true, abortSignal: signal })) {
    const parsed = parseBlobName(scope, item.name);
    if (!parsed || parsed.kind === 'checkpoint') continue;
    const held = item.properties.leaseState === 'leased' || item.properties.leaseState === 'breaking';
    if (parsed.kind === 'members') {
      if (held) (item.metadata?.[LEAVING_METADATA_KEY] === 'true' ? snapshot.leaving : snapshot.members).push(parsed.id);
      continue;
    }
    if (held) snapshot.holders.set(parsed.id, item.metadata?.ownerid ?? '');
    const epoch = parseEpoch(item.metadata?.epoch);
    if (epoch !== undefined) snapshot.epochs.set(parsed.id, epoch);
  }
  return snapshot;
}

/** Parses the `epoch` metadata value; undefined when absent or not a non-negative integer. */
export function parseEpoch(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  const epoch = Number(value.trim());
  return Number.isSafeInteger(epoch) ? epoch : undefined;
}
