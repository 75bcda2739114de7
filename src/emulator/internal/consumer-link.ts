/**
 * One attached receiver (a server-side sender link) delivering a partition's events. Credit is the
 * client's: rhea keeps the link's credit from the client's flow frames, and this link sends while credit
 * remains and events exist, picking up again on new flow (`sendable`) or new events. Deliveries are sent
 * pre-settled from stored bytes, so a delivery costs one frame and no re-encoding.
 */
import type { ReceiverLinkRecord } from '../types.ts';
import { corkForThisTurn, splicedPayload, writesPresizedFrames } from './rhea-server-output.ts';
import { runtimeInfoSection } from './event-message.ts';
import type { PartitionLog } from './partition-log.ts';
import { preciseNowMs } from './receiver-audit.ts';

/** What the fault controller decides for a partition at delivery time. */
export interface DeliveryControl {
  isPaused(log: PartitionLog): boolean;
  /** Per-event delay in ms (0 = none). */
  delayMs(log: PartitionLog): number;
}

/** Retry delay when the session's outgoing buffer is full although the link still has credit. */
const BUFFER_FULL_RETRY_MS = 1;

/** The runtime-metrics section last encoded, and what it was encoded from. */
interface RuntimeSectionCache {
  readonly sequenceNumber: number;
  readonly offset: number;
  readonly enqueuedTimeMs: number;
  readonly retrievalTimeMs: number;
  readonly section: Buffer;
}

export class ConsumerLink {
  closed = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: () => void;
  /**
   * A burst of deliveries within one millisecond, with no event appended meanwhile, carries the same
   * runtime metrics: encoded once, not once per delivery.
   */
  private runtimeSection: RuntimeSectionCache | undefined;
  /** Whether this link's connection writes presized frames, which take a delivery's bytes in pieces. */
  private readonly presized: boolean;

  constructor(
    readonly sender: any,
    readonly log: PartitionLog,
    readonly consumerGroup: string,
    readonly epoch: number | undefined,
    readonly runtimeMetrics: boolean,
    public nextSequenceNumber: number,
    readonly record: ReceiverLinkRecord,
    private readonly control: DeliveryControl,
  ) {
    this.unsubscribe = log.onAppend(() => this.pump());
    this.presized = writesPresizedFrames(sender.connection);
  }

  /** Sends what credit allows. Safe to call at any time. */
  pump(): void {
    if (this.closed || this.timer || this.control.isPaused(this.log)) return;
    const log = this.log;
    // A reader that fell behind the retention continues from the first retained event.
    if (this.nextSequenceNumber < log.beginSequenceNumber) this.nextSequenceNumber = log.beginSequenceNumber;
    if (this.nextSequenceNumber >= log.endSequenceNumber) {
      this.completeDrain();
      return;
    }
    const delayMs = this.control.delayMs(log);
    if (delayMs > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (this.closed || this.control.isPaused(log)) return;
        if (this.sender.sendable()) this.sendOne();
        this.pump();
      }, delayMs);
      this.timer.unref();
      return;
    }
    const sender = this.sender;
    const end = log.endSequenceNumber;
    if (sender.sendable()) corkForThisTurn(sender.connection);
    while (this.nextSequenceNumber < end && sender.sendable()) this.sendOne();
    if (this.nextSequenceNumber >= end) {
      this.completeDrain();
      return;
    }
    if (sender.credit > 0 && sender.is_open()) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, BUFFER_FULL_RETRY_MS);
      this.timer.unref();
    }
  }

  /**
   * A client that sets `drain` on its flow asks the sender to use up the credit it cannot fill (AMQP 1.0
   * part 2 §2.6.7). With nothing left to send, the remaining credit is consumed and a flow reports it.
   */
  private completeDrain(): void {
    const sender = this.sender;
    if (!sender._draining || sender.credit <= 0 || !sender.is_open()) return;
    sender.set_drained(true);
    sender.connection._register();
  }

  private sendOne(): void {
    const log = this.log;
    if (this.nextSequenceNumber < log.beginSequenceNumber) this.nextSequenceNumber = log.beginSequenceNumber;
    const event = log.get(this.nextSequenceNumber);
    if (!event) return;
    let payload: unknown = event.bytes;
    if (this.runtimeMetrics) {
      const at = event.deliveryAnnotationsAt;
      const parts = [event.bytes.subarray(0, at), this.runtimeInfo(), event.bytes.subarray(at)];
      // The presized writer copies the pieces straight into the frame; otherwise they are joined here.
      payload = this.presized ? splicedPayload(parts) : Buffer.concat(parts);
    }
    // A defined message format (0) makes rhea send the bytes as they are instead of encoding an object.
    this.sender.send(payload, undefined, 0);
    this.nextSequenceNumber++;
  }

  /** The delivery-annotations section with the partition's last enqueued event, as of now. */
  private runtimeInfo(): Buffer {
    const last = this.log.lastEnqueuedPosition;
    const now = Date.now();
    const cached = this.runtimeSection;
    if (
      cached &&
      cached.retrievalTimeMs === now &&
      cached.sequenceNumber === last.sequenceNumber &&
      cached.offset === last.offset &&
      cached.enqueuedTimeMs === last.enqueuedTimeMs
    )
      return cached.section;
    const section = runtimeInfoSection({
      lastSequenceNumber: last.sequenceNumber,
      lastOffset: this.log.offsets.text(last.offset),
      lastEnqueuedTimeMs: last.enqueuedTimeMs,
      retrievalTimeMs: now,
    });
    this.runtimeSection = { ...last, retrievalTimeMs: now, section };
    return section;
  }

  /** Marks the link closed (idempotent); records the detach time and condition in the audit. */
  markClosed(condition?: string): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.record.detachedAt = preciseNowMs();
    if (condition !== undefined) this.record.detachCondition = condition;
  }

  /** Detaches the link with an AMQP error (the link is recorded closed first). */
  detach(condition: string, description: string): void {
    if (this.closed) return;
    this.markClosed(condition);
    try {
      this.sender.close({ condition, description });
    } catch {
      // The connection may already be gone; the link is closed either way.
    }
  }
}
