import type { InFlightBudget } from './in-flight-budget.ts';

/** A batch in the window: its export, and whether it and every batch before it were delivered. */
interface Entry {
  readonly bytes: number;
  /** True once this batch and every earlier one were delivered and this one marked; false when one was not. */
  readonly done: Promise<boolean>;
}

export interface DeliveryWindowLimits {
  /** Most batches handed over and not yet done. At least 1. */
  readonly batches: number;
  /** Most event body bytes in those batches; one batch is always let in, whatever its size. */
  readonly bytes: number;
  /**
   * The receiver's budget, shared by every partition's window: a batch beyond a window's first goes only
   * while it fits there too (in-flight-budget.ts). Default none.
   */
  readonly shared?: InFlightBudget;
}

/**
 * A partition's batches between hand-over and checkpoint mark, in order. Several may be exported at once
 * (up to `limits`), but they are handed to the pipeline one after the other, in receive order, and each is
 * marked only once it and every batch before it were delivered: a batch N+1 delivered while N is still held
 * (refused, retried, or abandoned by a stop) is not marked, so the checkpoint never passes an undelivered
 * event. After a batch that was not delivered nothing later is marked either (it is read again).
 */
export class DeliveryWindow {
  readonly #limits: DeliveryWindowLimits;
  readonly #entries: Entry[] = [];
  /** Resolves once the last batch added was handed to its export (keeps hand-overs in order). */
  #handed: Promise<unknown> = Promise.resolve();
  /** The last batch's `done`. */
  #last: Promise<boolean> = Promise.resolve(true);
  #bytes = 0;
  /** Batches added whose export has not ended (being decoded, handed over or exported). */
  #unsettled = 0;

  constructor(limits: DeliveryWindowLimits) {
    if (!(limits.batches >= 1)) throw new RangeError(`batches (${limits.batches}) must be at least 1`);
    this.#limits = limits;
  }

  /** Batches in the window (handed over or about to be, not yet done). */
  get size(): number {
    return this.#entries.length;
  }

  /** Event body bytes of the batches in the window. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Batches added whose export has not ended: decoded elsewhere, waiting on the pipeline or exported. */
  get unsettled(): number {
    return this.#unsettled;
  }

  /** Whether a batch of `bytes` must wait for room (see `room`). */
  isFull(bytes: number): boolean {
    return this.#entries.length > 0 && !this.#fits(bytes);
  }

  /**
   * Adds a batch: `batch` (or the promise of it, decoded elsewhere) is handed to `exportIt` once the batch
   * before it was, and `mark` runs once it and every earlier batch were delivered. `exportIt` resolves true
   * when delivered (or dead-lettered, or dropped by choice), false when it gave up (stopped or killed);
   * `onExported` runs when it settles, in whatever order exports end.
   */
  add<T>(
    batch: T | Promise<T>,
    bytes: number,
    exportIt: (batch: T) => Promise<boolean>,
    mark: (batch: T) => void,
    onExported?: () => void,
  ): void {
    const handed = this.#handed.then(() => batch);
    this.#handed = handed.then(
      () => undefined,
      () => undefined,
    );
    this.#unsettled++;
    const exported = handed.then(async (b) => ({ batch: b, ok: await exportIt(b) }));
    void exported
      .finally(() => {
        this.#unsettled--;
        onExported?.();
      })
      .catch(() => undefined);
    const before = this.#last;
    const done = Promise.all([before, exported]).then(([earlierOk, { batch: b, ok }]) => {
      if (!earlierOk || !ok) return false;
      mark(b);
      return true;
    });
    const entry: Entry = { bytes, done };
    this.#last = done;
    this.#entries.push(entry);
    this.#bytes += bytes;
    this.#limits.shared?.add(bytes);
    void done.then(
      () => this.#remove(entry),
      () => this.#remove(entry),
    );
  }

  /**
   * Waits until a batch of `bytes` fits (the oldest batches done). False when a batch in the window was
   * not delivered (the pump stopped or was killed): nothing after it will be marked. Rejects as an export did.
   */
  async room(bytes: number): Promise<boolean> {
    while (this.isFull(bytes)) {
      if (!(await this.#entries[0]!.done)) return false;
    }
    return true;
  }

  /** Waits for every batch in the window; true when all were delivered (or there were none). */
  drain(): Promise<boolean> {
    return this.#last;
  }

  #fits(bytes: number): boolean {
    const l = this.#limits;
    return this.#entries.length < l.batches && this.#bytes + bytes <= l.bytes && (l.shared?.fits(bytes) ?? true);
  }

  #remove(entry: Entry): void {
    const i = this.#entries.indexOf(entry);
    if (i < 0) return;
    this.#entries.splice(i, 1);
    this.#bytes -= entry.bytes;
    this.#limits.shared?.remove(entry.bytes);
  }
}
