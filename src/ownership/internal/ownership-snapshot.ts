import type { ContainerClient } from '@azure/storage-blob';
import type { CheckpointScope } from '../checkpoint.ts';
import { blobPrefix, parseBlobName } from './blob-names.ts';
import { DEFAULT_FOREIGN_OWNERSHIP_EXPIRY_MS } from './coordinator-timings.ts';
import { foreignClaimLeftMs, foreignOwner, type OwnershipBlobView } from './foreign-owner.ts';
import { LEAVING_METADATA_KEY } from './membership-lease.ts';

/** One listing of a consumer group's ownership and membership blobs. */
export interface OwnershipSnapshot {
  /** Owner ids whose membership lease is held, except those leaving. */
  readonly members: string[];
  /** Owner ids whose membership lease is held and marked `leaving`: shutting down, about to release. */
  readonly leaving: string[];
  /** Partition id → `ownerid` metadata while the ownership lease is held (`''` when unknown); absent when free. */
  readonly holders: Map<string, string>;
  /**
   * Partition id → the `ownerid` metadata of an ownership blob whose lease lapsed (`expired`: not released, not
   * broken): who held it last. After a storage outage every lease has lapsed; each takes its own back first.
   */
  readonly lastOwners: Map<string, string>;
  /** Partition id → the `epoch` metadata key, where present. */
  readonly epochs: Map<string, number>;
  /**
   * Partition id → owner id, for partitions held by a live owner outside this fleet (an SDK processor's
   * ETag claim, no lease; see foreign-owner.ts). Never read by us while listed here.
   */
  readonly foreign: Map<string, string>;
  /**
   * The least time, in ms from the listing, that any of `foreign` stays live without being written again (its
   * owner rewrites it at each of its rounds while it runs); undefined when `foreign` is empty.
   */
  foreignLiveMs?: number;
  /** Partition id → the ownership blob's ETag: a claim is conditional on it, so a foreign claim in between wins. */
  readonly etags: Map<string, string>;
  /** Every owner id with a membership blob, leased or not: the instances of this fleet. */
  readonly known: Set<string>;
  /**
   * Owner id → its membership blob's ETag, for the members listed held (leaving or not). A member rewrites
   * its record when it gave a partition back while staying (see MembershipLease.announceChange), so a new
   * ETag tells a settled peer to list ownership.
   */
  readonly memberVersions: Map<string, string>;
}

/** One listing of a consumer group's membership blobs: the part of a snapshot every round reads. */
export type MembershipListing = Pick<OwnershipSnapshot, 'members' | 'leaving' | 'known' | 'memberVersions'>;

/**
 * Lists the membership blobs under `<fqns>/<hub>/<cg>/members/` (a few blobs, one per instance that ever ran).
 * A lease is "held" in state `leased` or `breaking` (a breaking lease still refuses acquisition until its
 * break period ends).
 */
export async function readMembership(
  container: ContainerClient,
  scope: CheckpointScope,
  signal: AbortSignal,
): Promise<MembershipListing> {
  const listing: MembershipListing = { members: [], leaving: [], known: new Set(), memberVersions: new Map() };
  for await (const page of pages(container, scope, 'members', signal)) {
    for (const item of page.segment.blobItems) {
      const parsed = parseBlobName(scope, item.name);
      if (parsed?.kind !== 'members') continue;
      listing.known.add(parsed.id);
      const leaving = item.metadata?.[LEAVING_METADATA_KEY] === 'true';
      if (!isHeld(item.properties.leaseState)) continue;
      (leaving ? listing.leaving : listing.members).push(parsed.id);
      if (item.properties.etag) listing.memberVersions.set(parsed.id, item.properties.etag);
    }
  }
  return listing;
}

/**
 * Lists the membership and ownership blobs under `<fqns>/<hub>/<cg>/` (two paged calls; the membership one is
 * skipped when `membership` is given, read just before by `readMembership`). A lease is "held" in state
 * `leased` or `breaking`; `available`, `expired` and `broken` are free. A foreign claim is judged by the
 * storage service's clock (the listing's Date header) against Last-Modified, with `foreignExpiryMs` (0: never
 * foreign).
 */
export async function readOwnershipSnapshot(
  container: ContainerClient,
  scope: CheckpointScope,
  signal: AbortSignal,
  foreignExpiryMs: number = DEFAULT_FOREIGN_OWNERSHIP_EXPIRY_MS,
  membership?: MembershipListing,
): Promise<OwnershipSnapshot> {
  // Two listings, members then ownership, rather than one of the whole prefix: that one would also return
  // every checkpoint blob (as many entries again, with their metadata) at every round.
  const { members, leaving, known, memberVersions } = membership ?? (await readMembership(container, scope, signal));
  const snapshot: OwnershipSnapshot = {
    members: [...members],
    leaving: [...leaving],
    known: new Set(known),
    memberVersions: new Map(memberVersions),
    holders: new Map(),
    lastOwners: new Map(),
    epochs: new Map(),
    foreign: new Map(),
    etags: new Map(),
  };
  const views = new Map<string, OwnershipBlobView>();
  let serviceNowMs = Date.now();
  for await (const page of pages(container, scope, 'ownership', signal)) {
    if (page.date) serviceNowMs = page.date.getTime();
    for (const item of page.segment.blobItems) {
      const parsed = parseBlobName(scope, item.name);
      if (parsed?.kind !== 'ownership') continue;
      const held = isHeld(item.properties.leaseState);
      if (held) snapshot.holders.set(parsed.id, item.metadata?.ownerid ?? '');
      else if (item.properties.leaseState === 'expired' && item.metadata?.ownerid)
        snapshot.lastOwners.set(parsed.id, item.metadata.ownerid);
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
    if (owner === undefined) continue;
    snapshot.foreign.set(pid, owner);
    const leftMs = foreignClaimLeftMs(view, serviceNowMs, foreignExpiryMs);
    snapshot.foreignLiveMs = Math.min(snapshot.foreignLiveMs ?? leftMs, leftMs);
  }
  return snapshot;
}

function pages(container: ContainerClient, scope: CheckpointScope, kind: 'members' | 'ownership', signal: AbortSignal) {
  const prefix = blobPrefix(scope, kind);
  return container.listBlobsFlat({ prefix, includeMetadata: true, abortSignal: signal }).byPage();
}

function isHeld(leaseState: string | undefined): boolean {
  return leaseState === 'leased' || leaseState === 'breaking';
}

/** Parses the `epoch` metadata value; undefined when absent or not a non-negative integer. */
export function parseEpoch(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  const epoch = Number(value.trim());
  return Number.isSafeInteger(epoch) ? epoch : undefined;
}
