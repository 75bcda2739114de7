import type { ContainerClient } from '@azure/storage-blob';
import type { CheckpointScope } from '../checkpoint.ts';
import { blobPrefix, parseBlobName } from './blob-names.ts';
import { DEFAULT_FOREIGN_OWNERSHIP_EXPIRY_MS } from './coordinator-timings.ts';
import { foreignOwner, type OwnershipBlobView } from './foreign-owner.ts';
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
  /**
   * Partition id → owner id, for partitions held by a live owner outside this fleet (an SDK processor's
   * ETag claim, no lease; see foreign-owner.ts). Never read by us while listed here.
   */
  readonly foreign: Map<string, string>;
  /** Partition id → the ownership blob's ETag: a claim is conditional on it, so a foreign claim in between wins. */
  readonly etags: Map<string, string>;
  /** Every owner id with a membership blob, leased or not: the instances of this fleet. */
  readonly known: Set<string>;
}

/**
 * Lists the membership and ownership blobs under `<fqns>/<hub>/<cg>/` (two paged calls). A lease is "held"
 * in state `leased` or `breaking` (a breaking lease still refuses acquisition until its break period ends); `available`,
 * `expired` and `broken` are free. A foreign claim is judged by the storage service's clock (the listing's
 * Date header) against Last-Modified, with `foreignExpiryMs` (0: never foreign).
 */
export async function readOwnershipSnapshot(
  container: ContainerClient,
  scope: CheckpointScope,
  signal: AbortSignal,
  foreignExpiryMs: number = DEFAULT_FOREIGN_OWNERSHIP_EXPIRY_MS,
): Promise<OwnershipSnapshot> {
  const snapshot: OwnershipSnapshot = {
    members: [], leaving: [], holders: new Map(), epochs: new Map(),
    foreign: new Map(), etags: new Map(), known: new Set(),
  };
  const views = new Map<string, OwnershipBlobView>();
  let serviceNowMs = Date.now();
  // Two listings, members then ownership, rather than one of the whole prefix: that one would also return
  // every checkpoint blob (as many entries again, with their metadata) at every round.
  const pages = (kind: 'members' | 'ownership') =>
    container.listBlobsFlat({ prefix: blobPrefix(scope, kind), includeMetadata: true, abortSignal: signal }).byPage();
  for await (const page of concat(pages('members'), pages('ownership'))) {
    if (page.date) serviceNowMs = page.date.getTime();
    for (const item of page.segment.blobItems) {
      const parsed = parseBlobName(scope, item.name);
      if (!parsed || parsed.kind === 'checkpoint') continue;
      const held = item.properties.leaseState === 'leased' || item.properties.leaseState === 'breaking';
      if (parsed.kind === 'members') {
        snapshot.known.add(parsed.id);
        const leaving = item.metadata?.[LEAVING_METADATA_KEY] === 'true';
        if (held) (leaving ? snapshot.leaving : snapshot.members).push(parsed.id);
        continue;
      }
      if (held) snapshot.holders.set(parsed.id, item.metadata?.ownerid ?? '');
      if (item.properties.etag) snapshot.etags.set(parsed.id, item.properties.etag);
      const lastModifiedMs = item.properties.lastModified?.getTime();
      views.set(parsed.id, { ownerId: item.metadata?.ownerid, leased: held, lastModifiedMs });
      const epoch = parseEpoch(item.metadata?.epoch);
      if (epoch !== undefined) snapshot.epochs.set(parsed.id, epoch);
    }
  }
  // After both listings: every member must be known before a holder is judged foreign.
  for (const [pid, view] of views) {
    const owner = foreignOwner(view, snapshot.known, serviceNowMs, foreignExpiryMs);
    if (owner !== undefined) snapshot.foreign.set(pid, owner);
  }
  return snapshot;
}

async function* concat<T>(...iterables: AsyncIterable<T>[]): AsyncIterable<T> {
  for (const iterable of iterables) yield* iterable;
}

/** Parses the `epoch` metadata value; undefined when absent or not a non-negative integer. */
export function parseEpoch(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  const epoch = Number(value.trim());
  return Number.isSafeInteger(epoch) ? epoch : undefined;
}
