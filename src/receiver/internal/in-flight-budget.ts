import { getHeapStatistics } from 'node:v8';

/**
 * Batches all partitions of one receiver have in flight together (handed to the pipeline, or being
 * decoded for it, and not yet done) beyond each partition's first: 16, two for each of 8 partitions. A
 * partition's first batch always goes; a second (up to `max_batches_in_flight`) only while the receiver
 * holds fewer than this many. Eight partitions keep two each, so the next export's batches are decoded
 * during the current one; 32 partitions already fill an export with one each, and a second batch each
 * only added memory (pipeline bench, 2026-11-28: 256 against 278 MiB peak RSS, the same throughput).
 */
export const IN_FLIGHT_BUDGET_BATCHES = 16;
/** Event body bytes in flight for the receiver, as a share of the heap: a sixteenth of the heap limit. */
export const IN_FLIGHT_HEAP_SHARE = 1 / 16;

export interface InFlightLimits {
  readonly batches: number;
  readonly bytes: number;
}

/**
 * What all partitions of one receiver have in flight, counted by their delivery windows
 * (delivery-window.ts), so memory held between reading and checkpointing has one bound however many
 * partitions the receiver reads. Nobody waits on the budget itself: a partition over it waits for its own
 * oldest batch, as it does at its own limits, so a receiver always makes progress on every partition.
 */
export class InFlightBudget {
  readonly #limits: InFlightLimits;
  #batches = 0;
  #bytes = 0;

  constructor(limits: InFlightLimits) {
    this.#limits = limits;
  }

  /** Batches in flight in all windows. */
  get batches(): number {
    return this.#batches;
  }

  /** Event body bytes in flight in all windows. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether one more batch of `bytes` fits (a partition's first batch goes regardless). */
  fits(bytes: number): boolean {
    return this.#batches < this.#limits.batches && this.#bytes + bytes <= this.#limits.bytes;
  }

  add(bytes: number): void {
    this.#batches++;
    this.#bytes += bytes;
  }

  remove(bytes: number): void {
    this.#batches--;
    this.#bytes -= bytes;
  }
}

/**
 * The receiver's budget: `IN_FLIGHT_BUDGET_BATCHES`, and body bytes of a sixteenth of the heap limit (the
 * CLI's cap, 1 GiB by default, gives 64 MiB), or a quarter of `memory.limit_mib` when that is set.
 */
export function inFlightBudgetFor(memoryLimitMib: number): InFlightBudget {
  const bytes =
    memoryLimitMib > 0
      ? (memoryLimitMib * 1024 * 1024) / 4
      : Math.floor(getHeapStatistics().heap_size_limit * IN_FLIGHT_HEAP_SHARE);
  return new InFlightBudget({ batches: IN_FLIGHT_BUDGET_BATCHES, bytes });
}
