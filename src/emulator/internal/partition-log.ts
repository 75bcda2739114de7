/**
 * One partition's event log, in memory. Sequence numbers start at 0; offsets are byte positions in the
 * partition (as on the service, they grow by each event's size and are not sequence numbers); events
 * older than the retention are dropped from the front and the first sequence number advances.
 */
import { stampEvent } from './event-message.ts';
import { NUMERIC_OFFSETS, type OffsetFormat } from './offset-format.ts';

export interface StoredEvent {
  readonly sequenceNumber: number;
  readonly offset: number;
  readonly enqueuedTimeMs: number;
  /** The message as delivered (annotations included). */
  readonly bytes: Buffer;
  readonly deliveryAnnotationsAt: number;
  readonly partitionKey?: string;
}

/** Compact the backing array once this many expired slots accumulate at its front. */
const COMPACT_AFTER_SLOTS = 4096;

export class PartitionLog {
  private events: StoredEvent[] = [];
  /** Index in `events` of the first retained event. */
  private head = 0;
  private nextSequenceNumber = 0;
  private nextOffset = 0;
  private lastEnqueuedTimeMs = 0;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly hub: string,
    readonly partitionId: string,
    /** How offsets are written for clients (numeric, or opaque as on geo-replicated namespaces). */
    readonly offsets: OffsetFormat = NUMERIC_OFFSETS,
  ) {}

  /** Appends encoded event messages; returns the stored events. */
  append(messages: Buffer[], partitionKey?: string, nowMs = Date.now()): StoredEvent[] {
    // Enqueued times never go backwards within a partition, as on the service.
    const enqueuedTimeMs = Math.max(nowMs, this.lastEnqueuedTimeMs);
    const stored: StoredEvent[] = [];
    for (const message of messages) {
      const stamped = stampEvent(message, {
        sequenceNumber: this.nextSequenceNumber,
        offset: this.offsets.text(this.nextOffset),
        enqueuedTimeMs,
        ...(partitionKey !== undefined ? { partitionKey } : {}),
      });
      const event: StoredEvent = {
        sequenceNumber: this.nextSequenceNumber,
        offset: this.nextOffset,
        enqueuedTimeMs,
        bytes: stamped.bytes,
        deliveryAnnotationsAt: stamped.deliveryAnnotationsAt,
        ...(stamped.partitionKey !== undefined ? { partitionKey: stamped.partitionKey } : {}),
      };
      this.events.push(event);
      stored.push(event);
      this.nextSequenceNumber++;
      this.nextOffset += message.length;
    }
    if (stored.length > 0) {
      this.lastEnqueuedTimeMs = enqueuedTimeMs;
      for (const listener of this.listeners) listener();
    }
    return stored;
  }

  /** Called after every append (receivers waiting for events). */
  onAppend(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get isEmpty(): boolean {
    return this.head >= this.events.length;
  }

  /** The first retained sequence number; equals `endSequenceNumber` when nothing is retained. */
  get beginSequenceNumber(): number {
    return this.isEmpty ? this.nextSequenceNumber : this.events[this.head]!.sequenceNumber;
  }

  /** The offset the next event will get (the byte position after the last one). */
  get nextOffsetValue(): number {
    return this.nextOffset;
  }

  /** The sequence number the next event will get. */
  get endSequenceNumber(): number {
    return this.nextSequenceNumber;
  }

  /** The retained event with this sequence number. */
  get(sequenceNumber: number): StoredEvent | undefined {
    const first = this.beginSequenceNumber;
    if (sequenceNumber < first || sequenceNumber >= this.nextSequenceNumber) return undefined;
    return this.events[this.head + (sequenceNumber - first)];
  }

  /** The sequence number of the first retained event matching `predicate`, searching by binary search. */
  private firstWhere(predicate: (e: StoredEvent) => boolean): number {
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (predicate(this.events[mid]!)) hi = mid;
      else lo = mid + 1;
    }
    return lo < this.events.length ? this.events[lo]!.sequenceNumber : this.nextSequenceNumber;
  }

  /** Where a reader starting after (or at, when inclusive) this offset begins. */
  seekOffset(offset: number, inclusive: boolean): number {
    return this.firstWhere((e) => (inclusive ? e.offset >= offset : e.offset > offset));
  }

  /** Where a reader starting after this enqueued time begins. */
  seekEnqueuedTime(timeMs: number, inclusive = false): number {
    return this.firstWhere((e) => (inclusive ? e.enqueuedTimeMs >= timeMs : e.enqueuedTimeMs > timeMs));
  }

  /** Drops events enqueued before `nowMs - retentionMs`; returns how many were dropped. */
  expire(retentionMs: number, nowMs = Date.now()): number {
    const cutoff = nowMs - retentionMs;
    const before = this.head;
    while (this.head < this.events.length && this.events[this.head]!.enqueuedTimeMs < cutoff) {
      this.head++;
    }
    const dropped = this.head - before;
    if (this.head >= COMPACT_AFTER_SLOTS || (this.head > 0 && this.head === this.events.length)) {
      const last = this.events[this.events.length - 1];
      this.events = this.events.slice(this.head);
      this.head = 0;
      if (this.events.length === 0 && last) {
        // Everything expired: remember the last event's position for partition properties.
        this.expiredLast = last;
      }
    }
    return dropped;
  }

  private expiredLast: StoredEvent | undefined;

  /** The last enqueued event's position, surviving full expiry. */
  get lastEnqueuedPosition(): { sequenceNumber: number; offset: number; enqueuedTimeMs: number } {
    const last = this.events[this.events.length - 1] ?? this.expiredLast;
    if (last) return { sequenceNumber: last.sequenceNumber, offset: last.offset, enqueuedTimeMs: last.enqueuedTimeMs };
    return { sequenceNumber: -1, offset: -1, enqueuedTimeMs: 0 };
  }
}
