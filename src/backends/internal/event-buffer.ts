/**
 * The bounded hand-off between a backend's network side and `PartitionReader.receive()`.
 * The network side pushes events; `receive()` takes up to `max` of them, waiting at most `maxWaitMs`.
 * It does not limit its own size: each backend stops the network side at its bound (the polling
 * backend holds the SDK's handler promise until `whenEmpty()`, the streaming backend stops granting
 * AMQP credit). A failure is delivered to the waiting and every later `receive()`; events still
 * buffered then are dropped, because a failed reader must not hand out more events (another reader may
 * own the partition already).
 */
import type { ReceivedEvent } from '../consumer.ts';
import { BackendError } from '../consumer.ts';

/** Above this many consumed slots at the head, the rest moves to the front (amortised O(1) takes). */
const COMPACT_THRESHOLD = 1024;

interface Waiter {
  readonly max: number;
  readonly resolve: (events: ReceivedEvent[]) => void;
  readonly reject: (error: unknown) => void;
}

export class EventBuffer {
  /**
   * Events at `[#head, #tail)`; the slots around them are empty (undefined) and reused: the array grows
   * to the most the buffer held and stays, instead of being built again after every take.
   */
  #items: (ReceivedEvent | undefined)[] = [];
  #head = 0;
  #tail = 0;
  /** A wake-up is queued (one per burst of pushes, not one per event). */
  #waking = false;
  #waiter: Waiter | undefined;
  #failure: Error | undefined;
  #closed = false;
  #emptyWaiters: (() => void)[] = [];
  /** Called after `receive()` took events (the streaming backend grants credit here). */
  onTaken: (() => void) | undefined;

  /** Events buffered and not yet returned. */
  get length(): number {
    return this.#tail - this.#head;
  }

  get failure(): Error | undefined {
    return this.#failure;
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  push(event: ReceivedEvent): void {
    if (this.#closed || this.#failure) return;
    this.#add(event);
    this.#wake();
  }

  pushAll(events: readonly ReceivedEvent[]): void {
    if (this.#closed || this.#failure || events.length === 0) return;
    for (const e of events) this.#add(e);
    this.#wake();
  }

  #add(event: ReceivedEvent): void {
    if (this.#tail < this.#items.length) this.#items[this.#tail] = event;
    else this.#items.push(event);
    this.#tail++;
  }

  /** Resolves when every buffered event was taken, or the buffer failed or closed. */
  whenEmpty(): Promise<void> {
    if (this.length === 0 || this.#closed || this.#failure) return Promise.resolve();
    return new Promise((resolve) => this.#emptyWaiters.push(resolve));
  }

  /** Fails the reader: the waiting and every later `receive()` reject with `error`. First failure wins. */
  fail(error: Error): void {
    if (this.#closed || this.#failure) return;
    this.#failure = error;
    this.#drop();
    this.#waiter?.reject(error);
  }

  /** Closes: a waiting `receive()` resolves with [], later ones reject. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#drop();
    this.#waiter?.resolve([]);
  }

  /** The `PartitionReader.receive()` contract; one call at a time. */
  receive(maxEvents: number, maxWaitMs: number, signal: AbortSignal): Promise<ReceivedEvent[]> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#closed)
      return Promise.reject(
        new BackendError('the partition reader is closed', { retryable: false, code: 'ReaderClosed' }),
      );
    if (this.#waiter)
      return Promise.reject(new Error('receive() is already pending on this reader; call it one at a time'));
    const max = Math.max(1, Math.floor(maxEvents));
    if (this.length > 0) return Promise.resolve(this.#take(max));
    return new Promise<ReceivedEvent[]>((resolve, reject) => {
      const timer = setTimeout(() => settle(() => resolve([])), Math.max(0, maxWaitMs));
      timer.unref?.();
      const onAbort = (): void => settle(() => reject(signal.reason));
      const settle = (fn: () => void): void => {
        if (this.#waiter !== waiter) return;
        this.#waiter = undefined;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        fn();
      };
      const waiter: Waiter = {
        max,
        resolve: (events) => settle(() => resolve(events)),
        reject: (error) => settle(() => reject(error)),
      };
      this.#waiter = waiter;
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  #wake(): void {
    if (!this.#waiter || this.#waking) return;
    // Resolving on a microtask lets the rest of the socket read (more transfers in the same chunk) land
    // in the buffer first, so one receive() returns a batch instead of a single event.
    this.#waking = true;
    queueMicrotask(this.#woken);
  }

  readonly #woken = (): void => {
    this.#waking = false;
    const w = this.#waiter;
    if (w && this.length > 0) w.resolve(this.#take(w.max));
  };

  #take(max: number): ReceivedEvent[] {
    const items = this.#items;
    const head = this.#head;
    const end = Math.min(this.#tail, head + max);
    const out = items.slice(head, end) as ReceivedEvent[];
    items.fill(undefined, head, end);
    this.#head = end;
    if (end === this.#tail) {
      this.#head = 0;
      this.#tail = 0;
    } else if (end > COMPACT_THRESHOLD && end * 2 > this.#tail) {
      items.copyWithin(0, end, this.#tail);
      items.fill(undefined, this.#tail - end, this.#tail);
      this.#tail -= end;
      this.#head = 0;
    }
    if (this.length === 0) this.#notifyEmpty();
    this.onTaken?.();
    return out;
  }

  #drop(): void {
    this.#items = [];
    this.#head = 0;
    this.#tail = 0;
    this.#notifyEmpty();
  }

  #notifyEmpty(): void {
    const waiters = this.#emptyWaiters;
    this.#emptyWaiters = [];
    for (const w of waiters) w();
  }
}
