import { performance } from 'node:perf_hooks';
import type { BalanceDecision } from '../balance.ts';
import type { MembershipListing } from './ownership-snapshot.ts';
import type { PartitionLease } from './partition-lease.ts';

/**
 * While the fleet is settled, a full round (the ownership listing) comes at least once per this many rounds:
 * every 30 s at the default 5 s update interval. It is the only way a settled instance notices what its own
 * claims and the membership listing cannot show: a foreign (SDK) processor's release or a new foreign claim,
 * or a lease broken by hand. A peer that gives a partition back announces it by rewriting its membership
 * record (MembershipLease.announceChange): a new ETag in the listing ends the quiet rounds.
 */
export const FULL_LISTING_EVERY_ROUNDS = 6;

/** What a quiet round compares with the round that found the fleet settled. */
export interface FleetView {
  readonly membership: MembershipListing;
  /** The hub's partition ids. */
  readonly partitionIds: readonly string[];
  /** This instance's claims. */
  readonly claims: Iterable<PartitionLease>;
}

/** What the settled round decided, for the `balanced` event of the quiet rounds after it. */
export interface SettledShare {
  readonly members: number;
  readonly fairShare: number;
}

/** What a full round saw and decided, to judge whether the fleet is settled. */
export interface FullRound {
  readonly ownerId: string;
  /** The hub's partition ids, except those a live foreign processor holds. */
  readonly partitionIds: readonly string[];
  /** Partition id → holder, this instance's active claims under its own id (see round-view.ts). */
  readonly ownerships: ReadonlyMap<string, string | undefined>;
  /** The other live members (not leaving). */
  readonly members: readonly string[];
  /** The other members marked `leaving`. */
  readonly leaving: readonly string[];
  readonly decision: BalanceDecision;
  /** Partitions this instance owns after the round's claims. */
  readonly owned: number;
  readonly claims: Iterable<PartitionLease>;
  /** This instance's membership lease is held (it counts in everyone's share). */
  readonly membershipHeld: boolean;
}

/**
 * The settled share, when the fleet is settled after this full round: every partition of the hub but the
 * foreign-held ones is held by a live member and nobody leaves (so no member has anything to claim from a
 * listing), and this instance has nothing to claim or yield, every claim of its own running (none starting,
 * stopping, lost, or waiting out a restart backoff).
 */
export function settledShare(round: FullRound): SettledShare | undefined {
  const { decision } = round;
  if (!round.membershipHeld || round.leaving.length > 0) return undefined;
  if (decision.claim.length > 0 || decision.yield.length > 0 || round.owned !== decision.fairShare) return undefined;
  for (const claim of round.claims) if (claim.state !== 'running') return undefined;
  const live = new Set([...round.members, round.ownerId]);
  for (const pid of round.partitionIds) {
    const holder = round.ownerships.get(pid);
    if (holder === undefined || !live.has(holder)) return undefined;
  }
  return { members: decision.members, fairShare: decision.fairShare };
}

/**
 * Quiet rounds (issue 14: at 1024 partitions, parsing the ownership listing of every round was most of an idle
 * instance's CPU). After a full round found the fleet settled (`settledShare`), the next rounds list only the
 * membership blobs, and go on to a full round in the same round as soon as anything they can see differs from
 * the settled one: the members or the leaving ones, the hub's partition ids, or this instance's own claims (one
 * lost, ended, released or claimed again: each claim carries its epoch). `unsettle()` makes the next round full.
 */
export class QuietRounds {
  /** The settled round's view, as a key; undefined while not settled. */
  #key: string | undefined;
  #share: SettledShare | undefined;
  /** Quiet rounds since the last full one. */
  #quiet = 0;
  /** The first foreign claim listed at the settled round can lapse from then on (performance.now()). */
  #fullByMs = Number.POSITIVE_INFINITY;

  /**
   * Whether this round may skip the ownership listing: settled, the same view, no foreign claim listed then
   * can have lapsed, and at most FULL_LISTING_EVERY_ROUNDS − 1 quiet rounds in a row. Counts the round when
   * it is quiet, and returns the settled share then, for the `balanced` event.
   */
  quiet(view: FleetView, nowMs = performance.now()): SettledShare | undefined {
    if (this.#key === undefined || this.#key !== viewKey(view)) return this.unsettle();
    if (this.#quiet + 1 >= FULL_LISTING_EVERY_ROUNDS || nowMs >= this.#fullByMs) return undefined;
    this.#quiet++;
    return this.#share;
  }

  /**
   * A full round ended: `share` when it found the fleet settled (the view is then the one to compare with).
   * `fullByMs` (performance.now()): when a foreign claim it listed can lapse unless its owner writes it again
   * (then its partition is free to claim): the first round from then on is a full one.
   */
  fullRound(view: FleetView, share: SettledShare | undefined, fullByMs = Number.POSITIVE_INFINITY): void {
    this.#quiet = 0;
    this.#key = share ? viewKey(view) : undefined;
    this.#share = share;
    this.#fullByMs = fullByMs;
  }

  /** The next round is a full one (something changed that the quiet rounds could not see). */
  unsettle(): undefined {
    this.#key = undefined;
    this.#share = undefined;
    return undefined;
  }
}

function viewKey(view: FleetView): string {
  const { members, leaving, memberVersions } = view.membership;
  const claims = [...view.claims].map((c) => `${c.partitionId}@${c.ownerLevel}:${c.state}`);
  // JSON keeps any owner id unambiguous; the claims' order is the map's, which only changes with the claims.
  // A member's record rewritten (a new ETag) announces a partition it gave back: see announceChange.
  const versions = [...memberVersions].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return JSON.stringify([[...members].sort(), [...leaving].sort(), versions, view.partitionIds, claims]);
}
