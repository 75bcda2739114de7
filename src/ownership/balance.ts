import { sortPartitionIds } from './partition-order.ts';

/**
 * `balanced`: claim at most `balancedClaims` partitions per round (default one), so that members starting
 * together interleave their claims from fresh views. `greedy`: claim the whole missing share in one round.
 */
export type BalanceStrategy = 'balanced' | 'greedy';

export interface BalanceInput {
  /** This instance. Counted as a live member even when absent from `members`. */
  readonly ownerId: string;
  /** Live members (instances whose membership lease is held), this one included or not. */
  readonly members: readonly string[];
  /**
   * Current owner of each partition: an owner id while its lease is held, `undefined` (or missing) while it
   * is free (never leased, released, expired or broken). A partition held by an id that is not a live member
   * is treated as claimable, after the free ones: its holder is gone and the lease is about to lapse.
   */
  readonly ownerships: ReadonlyMap<string, string | undefined>;
  readonly partitionIds: readonly string[];
  readonly strategy: BalanceStrategy;
  /**
   * Members shutting down (membership marked `leaving`). They get no share, and the partitions they still
   * hold are neither claimable nor counted: they will be released in a moment. Default none.
   */
  readonly leaving?: readonly string[];
  /** How many partitions `balanced` may claim in this round. Default 1. */
  readonly balancedClaims?: number;
  /**
   * Partition id → who held a free partition last (its ownership blob's `ownerid`). This instance's own come
   * first, all of them in one round whatever the strategy (they are nobody else's yet): an instance whose
   * leases lapsed in a storage outage takes its partitions back and reads on from where it was. Default none.
   */
  readonly lastOwners?: ReadonlyMap<string, string>;
  /**
   * Owner ids whose free partitions are left to them in this round: after this instance's own storage outage,
   * every lease lapsed at once and their holders take them back first (see lastOwners). Default none.
   */
  readonly holdBackFor?: ReadonlySet<string>;
}

export interface BalanceDecision {
  /** Partitions to claim now, best candidates first. */
  readonly claim: readonly string[];
  /** Partitions to give up now (at most one per round: hand-off is cooperative). */
  readonly yield: readonly string[];
  /** How many partitions this instance should own: floor(P/M) or ceil(P/M). */
  readonly fairShare: number;
  /** Number of live members the share was computed for. */
  readonly members: number;
}

/**
 * The load-balancing rule, a pure function of one snapshot. Every live member's share is floor(P/M) or
 * ceil(P/M); exactly P mod M members get the ceiling: those owning most now (ties by owner id), so that a
 * balanced fleet stays put. Below its share an instance claims free partitions (never one a live member
 * holds: no stealing); above it, it yields one partition per round, and a member below its share picks it
 * up in its next round.
 */
export function balance(input: BalanceInput): BalanceDecision {
  const leaving = new Set(input.leaving ?? []);
  const members = [...new Set([...input.members.filter((m) => !leaving.has(m)), input.ownerId])].sort();
  const live = new Set(members);
  const partitionIds = sortPartitionIds(new Set(input.partitionIds));
  const total = partitionIds.length;
  const floor = Math.floor(total / members.length);
  const ceilSlots = total % members.length;

  const owned = new Map<string, string[]>(members.map((m) => [m, []]));
  const free: string[] = [];
  const orphaned: string[] = [];
  for (const id of partitionIds) {
    const owner = input.ownerships.get(id);
    if (owner === undefined || owner === '') free.push(id);
    else if (live.has(owner)) owned.get(owner)!.push(id);
    else if (!leaving.has(owner)) orphaned.push(id);
  }

  // Ceiling slots go to the members owning most now, ties broken by id: every member computes the same order.
  const ranked = [...members].sort(
    (a, b) => owned.get(b)!.length - owned.get(a)!.length || (a < b ? -1 : a > b ? 1 : 0),
  );
  const fairShare = floor + (ranked.indexOf(input.ownerId) < ceilSlots ? 1 : 0);
  const mine = owned.get(input.ownerId)!;
  const decision = { fairShare, members: members.length };

  if (mine.length > fairShare) {
    // The most recently added partition in id order goes first; any choice is correct, a stable one is calmer.
    return { ...decision, claim: [], yield: [mine[mine.length - 1]!] };
  }
  const missing = fairShare - mine.length;
  if (missing === 0) return { ...decision, claim: [], yield: [] };
  const allowance = Math.max(1, Math.floor(input.balancedClaims ?? 1));
  const lastOwner = (id: string) => input.lastOwners?.get(id);
  const formerlyMine = free.filter((id) => lastOwner(id) === input.ownerId);
  const others = free.filter((id) => {
    const owner = lastOwner(id);
    return owner !== input.ownerId && !(owner !== undefined && input.holdBackFor?.has(owner));
  });
  const wanted = input.strategy === 'greedy' ? missing : Math.min(missing, Math.max(allowance, formerlyMine.length));
  const myIndex = members.indexOf(input.ownerId);
  const candidates = [
    ...formerlyMine,
    ...spread(others, myIndex, members.length),
    ...spread(orphaned, myIndex, members.length),
  ];
  return { ...decision, claim: candidates.slice(0, wanted), yield: [] };
}

/**
 * Orders candidates so that members claiming at the same moment from the same view reach for different
 * partitions: the member at index i of the sorted member list prefers candidates i, i+M, i+2M, ..., then
 * the rest. Without this, simultaneous claims race for the same leases and most of them fail.
 */
function spread(ids: readonly string[], memberIndex: number, memberCount: number): string[] {
  const preferred = ids.filter((_, k) => k % memberCount === memberIndex);
  const rest = ids.filter((_, k) => k % memberCount !== memberIndex);
  return [...preferred, ...rest];
}
