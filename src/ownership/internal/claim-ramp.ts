import { MAX_CLAIMS_IN_FLIGHT } from './claim-admission.ts';

/**
 * How many partitions a `balanced` round may claim. While members join, one per round, so that members
 * starting together interleave their claims from fresh views; once a round sees no newcomer since the last,
 * each round that claimed doubles the next one's allowance (up to MAX_CLAIMS_IN_FLIGHT). A member that left
 * (crashed, or its lease lapsed) settles the others' shares as much as a stable view does: only a member
 * that joined since the last round resets the ramp.
 */
export class ClaimRamp {
  /** The other live members at the last round. */
  #lastMembers: Set<string> | undefined;
  /** Claims the next `balanced` round may make from a stable view. */
  #claims = 1;
  #stableView = false;

  /** The allowance of this round, from its other live members (leaving ones excluded). */
  observe(members: readonly string[]): number {
    const previous = this.#lastMembers;
    const current = new Set(members);
    this.#lastMembers = current;
    this.#stableView = previous !== undefined && members.every((m) => previous.has(m));
    if (!this.#stableView) this.#claims = 1;
    else if ([...previous!].some((m) => !current.has(m))) this.#claims = MAX_CLAIMS_IN_FLIGHT;
    return this.#stableView ? this.#claims : 1;
  }

  /** This round got through its claims: doubles the allowance if it claimed from a stable view, else resets it. */
  claimed(claimedAny: boolean): void {
    this.#claims = claimedAny && this.#stableView ? Math.min(this.#claims * 2, MAX_CLAIMS_IN_FLIGHT) : 1;
  }
}
