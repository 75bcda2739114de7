import type { OwnershipSnapshot } from './ownership-snapshot.ts';
import type { PartitionLease } from './partition-lease.ts';

/** One balancing round's view of the fleet, from the listing and this instance's own claims. */
export interface RoundView {
  /** Partition id → holder (`''` when unknown); this instance's active claims under its own id. */
  readonly ownerships: Map<string, string | undefined>;
  /** The other live members, except those leaving. */
  readonly members: string[];
  /** The other members marked `leaving`. */
  readonly leaving: string[];
  /** Held by an id that is no live member (crashed, or our own earlier lease): its lease lapses by itself. */
  readonly orphaned: (partitionId: string) => boolean;
}

export function roundView(snapshot: OwnershipSnapshot, ownerId: string, claims: Iterable<PartitionLease>): RoundView {
  const ownerships = new Map<string, string | undefined>();
  for (const [pid, holder] of snapshot.holders) {
    // Held under our id but not by this object: a lease of ours we lost track of. Not a member's, so claimable.
    ownerships.set(pid, holder === ownerId ? `${ownerId} (earlier lease)` : holder);
  }
  for (const claim of claims) if (claim.active) ownerships.set(claim.partitionId, ownerId);
  const members = snapshot.members.filter((m) => m !== ownerId);
  const leaving = snapshot.leaving.filter((m) => m !== ownerId);
  const live = new Set([...members, ...leaving, ownerId]);
  const orphaned = (pid: string): boolean => {
    const holder = ownerships.get(pid);
    return holder !== undefined && holder !== '' && !live.has(holder);
  };
  return { ownerships, members, leaving, orphaned };
}
