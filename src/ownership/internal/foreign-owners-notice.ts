import type { OwnershipEvent } from '../coordinator.ts';
import { sortPartitionIds } from '../partition-order.ts';

/**
 * Tells the partitions held by processors outside this fleet (`foreignOwners`) when they change: a log line
 * and a status, not an error, and not at every round.
 */
export class ForeignOwnersNotice {
  readonly #emit: (event: OwnershipEvent) => void;
  /** Foreign-owned partitions last told, as `pid=owner` keys. */
  #key = '';

  constructor(emit: (event: OwnershipEvent) => void) {
    this.#emit = emit;
  }

  /** `foreign`: partition id → owner id, from this round's listing. */
  note(foreign: ReadonlyMap<string, string>): void {
    const ids = sortPartitionIds([...foreign.keys()]);
    const key = ids.map((pid) => `${pid}=${foreign.get(pid)}`).join(',');
    if (key === this.#key) return;
    this.#key = key;
    this.#emit({ type: 'foreignOwners', partitions: new Map(ids.map((pid) => [pid, foreign.get(pid)!])) });
  }
}
