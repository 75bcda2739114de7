/**
 * Processors outside this fleet that share the container: the Azure SDK processors (JS, Go, .NET, Java,
 * Python), the Go collector receiver and Filebeat v2. They claim a partition by writing `ownerid` with an
 * ETag condition and no lease, and count the claim as live until their ownership expiry has passed since
 * the blob's Last-Modified (60 s in the JS and Go SDKs, 2 min in .NET); a live owner rewrites the blob at
 * every balancing round. See `BlobCheckpointStore.claimOwnership` in `@azure/eventhubs-checkpointstore-blob`.
 */

/**
 * Last-Modified and Date are HTTP dates, in whole seconds: an age computed from them can read up to one
 * second too old. A claim counts as live for this much longer, so that it is never judged abandoned early.
 */
export const HTTP_DATE_RESOLUTION_MS = 1_000;

/** What one ownership blob tells about its owner. */
export interface OwnershipBlobView {
  /** The `ownerid` metadata value; `''` or undefined when released (Azurite drops empty values). */
  readonly ownerId: string | undefined;
  /** Lease state `leased` or `breaking`: a claim of ours (SDK processors never lease ownership blobs). */
  readonly leased: boolean;
  /** The blob's Last-Modified, in ms since the epoch. */
  readonly lastModifiedMs: number | undefined;
}

/**
 * The foreign owner of a partition, or undefined. A partition has a live foreign owner when its ownership
 * blob is not leased, names an owner that is not one of ours (`known`: every id with a `members/` blob, so
 * every instance of this fleet that ever ran here), and was written less than `expiryMs` before `nowMs`.
 * `nowMs` should be the storage service's clock (the Date of the response), as Last-Modified is: then no
 * clock skew between hosts matters. Both are whole seconds, so the claim counts as live for
 * `HTTP_DATE_RESOLUTION_MS` more than `expiryMs`: never taken early. `expiryMs` 0 turns the check off.
 */
export function foreignOwner(
  view: OwnershipBlobView,
  known: ReadonlySet<string>,
  nowMs: number,
  expiryMs: number,
): string | undefined {
  const owner = view.ownerId;
  if (expiryMs <= 0 || view.leased || !owner || known.has(owner) || view.lastModifiedMs === undefined) return undefined;
  return nowMs - view.lastModifiedMs < expiryMs + HTTP_DATE_RESOLUTION_MS ? owner : undefined;
}

/**
 * How much longer, in ms from `nowMs`, a foreign owner's claim counts as live without being written again (see
 * `foreignOwner`); 0 once it no longer does.
 */
export function foreignClaimLeftMs(view: OwnershipBlobView, nowMs: number, expiryMs: number): number {
  if (view.lastModifiedMs === undefined) return 0;
  return Math.max(0, view.lastModifiedMs + expiryMs + HTTP_DATE_RESOLUTION_MS - nowMs);
}
