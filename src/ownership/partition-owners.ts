import type { ContainerClient } from '@azure/storage-blob';
import type { CheckpointScope } from './checkpoint.ts';
import { readOwnershipSnapshot, type OwnershipSnapshot } from './internal/ownership-snapshot.ts';

/**
 * Partition id → owner id for the partitions whose ownership lease is held (`leased` or `breaking`), and for
 * those a live processor outside the fleet holds (an SDK processor's ETag claim, see foreign-owner.ts); a
 * free partition, whose lease expired, was broken or released, is absent. An owner id is `''` when the
 * blob's `ownerid` metadata is missing (a lease taken by a tool that does not write it).
 */
function ownersFromSnapshot(snapshot: OwnershipSnapshot): ReadonlyMap<string, string> {
  return new Map([...snapshot.foreign, ...snapshot.holders]);
}

/**
 * Reads the owners of a consumer group's partitions from the ownership blobs, in one listing of the
 * container per call. The lease state is the service's, so an owner that stopped renewing drops out on
 * its own once its lease lapses, without trusting any clock.
 */
export function blobPartitionOwners(
  container: ContainerClient,
  scope: CheckpointScope,
  foreignOwnershipExpiryMs?: number,
): (signal: AbortSignal) => Promise<ReadonlyMap<string, string>> {
  return async (signal) =>
    ownersFromSnapshot(await readOwnershipSnapshot(container, scope, signal, foreignOwnershipExpiryMs));
}
