/**
 * Backfill from Event Hubs Capture, as a HubClient wrapper the partition pump reads through unchanged:
 * when the partition's next event has expired from the hub (its sequence number is below the first retained
 * one), the reader serves the missing range from Capture files, in sequence order, and then opens the hub
 * right after it. The pump decodes, exports and checkpoints these events like any others (at-least-once:
 * the checkpoint moves past an event only once it was exported), so the checkpoints stay continuous.
 *
 * Gaps are found twice: when the reader opens (the partition's first retained sequence number against the
 * start position) and while it reads (a delivery that skips sequence numbers because events expired while
 * the reader was away). A stretch Capture does not hold (a deleted file, a window not written yet) is
 * logged and counted with its exact range, and reading goes on after it.
 */
import type {
  HubClient,
  LastEnqueuedInfo,
  OpenOptions,
  PartitionProperties,
  PartitionReader,
  ReceivedEvent,
} from '../../backends/consumer.ts';
import type { CaptureChunk, CapturePartitionReader } from '../../capture/capture-reader.ts';
import type { Logger } from '../../component/logger.ts';
import { raceAbort } from '../../component/abort.ts';
import type { PumpCounters } from '../internal/pump-counters.ts';
import type { ReceiverStatus } from '../receiver-status.ts';
import type { BackfillProgress } from './backfill-progress.ts';
import { receivedEventOf } from './capture-event.ts';
import { hubWithReaders } from './hub-with-readers.ts';

export interface CaptureBackfillDeps {
  /** The partition's capture files. */
  readonly capture: (partitionId: string) => CapturePartitionReader;
  readonly progress: BackfillProgress;
  readonly counters: PumpCounters;
  readonly logger: Logger;
  readonly emit: (status: ReceiverStatus) => void;
}

/** The hub as the pump sees it: the same, except that a reader fills retention gaps from Capture. */
export function withCaptureBackfill(hub: HubClient, deps: CaptureBackfillDeps): HubClient {
  return hubWithReaders(hub, (id, options) => new CaptureBackfillReader(hub, id, options, deps));
}

/** The sequence number a start position reads first, when it names one. */
function firstSequenceNumber(options: OpenOptions): number | undefined {
  const p = options.startPosition;
  if (p.kind !== 'sequenceNumber') return undefined;
  return p.inclusive ? p.sequenceNumber : p.sequenceNumber + 1;
}

/** How often an idle live read asks the hub where the partition begins (an expired gap shows no later event). */
const IDLE_HUB_CHECK_MS = 5_000;

class CaptureBackfillReader implements PartitionReader {
  #live: PartitionReader | undefined;
  /** Next sequence number to hand over; undefined until known (a start that names none, before its first batch). */
  #next: number | undefined;
  /** Captured events read but not handed over yet, then live events held back while a gap before them is filled. */
  #queue: ReceivedEvent[] = [];
  #held: ReceivedEvent[] = [];
  #chunks: AsyncGenerator<CaptureChunk> | undefined;
  #rangeEnd = -1;
  #backfilled = 0;
  #checkedAtOpen = false;
  /** When an idle live read last asked the hub where it begins (performance.now()). */
  #idleCheckAt = Number.NEGATIVE_INFINITY;
  #props: PartitionProperties | undefined;
  #closed = false;

  constructor(
    private readonly hub: HubClient,
    readonly partitionId: string,
    private readonly options: OpenOptions,
    private readonly deps: CaptureBackfillDeps,
  ) {
    this.#next = firstSequenceNumber(options);
  }

  async receive(maxEvents: number, maxWaitMs: number, signal: AbortSignal): Promise<ReceivedEvent[]> {
    signal.throwIfAborted();
    if (!this.#checkedAtOpen) {
      this.#checkedAtOpen = true;
      await this.#checkHub(signal);
    }
    for (;;) {
      if (this.#queue.length > 0) return this.#handOver(this.#queue.splice(0, maxEvents));
      if (this.#chunks) {
        await this.#readChunk(signal);
        continue;
      }
      if (this.#held.length > 0) return this.#handOver(this.#held.splice(0, maxEvents));
      // A stop must not wait for an open the backend keeps retrying; a reader opened too late is closed.
      this.#live ??= await raceAbort(
        this.hub.openPartition(this.partitionId, this.#liveOptions()),
        signal,
        (late) => void late.close().catch(() => undefined),
      );
      const events = await this.#live.receive(maxEvents, maxWaitMs, signal);
      const first = events[0];
      if (first && this.#next !== undefined && first.sequenceNumber > this.#next) {
        // Events expired while this reader was away: fill the gap first, then hand these over.
        this.#held = events;
        this.#begin(this.#next, first.sequenceNumber - 1);
        continue;
      }
      // An idle hub shows no later event that would reveal a gap: events that expired between the open and the
      // first delivery (a loaded machine, a slow poll) are found only by asking the hub where it now begins.
      // At most once per IDLE_HUB_CHECK_MS: a management request per idle read of every partition is too many.
      if (!first && performance.now() - this.#idleCheckAt >= IDLE_HUB_CHECK_MS) {
        this.#idleCheckAt = performance.now();
        if (await this.#checkHub(signal)) continue;
      }
      return this.#handOver(events);
    }
  }

  #handOver(events: ReceivedEvent[]): ReceivedEvent[] {
    const last = events[events.length - 1];
    if (last) {
      this.#next = last.sequenceNumber + 1;
      this.deps.progress.advance(this.partitionId, this.#next);
    }
    return events;
  }

  /** Where the live reader starts: right after what was handed over, or the pump's own start. */
  #liveOptions(): OpenOptions {
    if (this.#next === undefined) return this.options;
    return { ...this.options, startPosition: { kind: 'sequenceNumber', sequenceNumber: this.#next, inclusive: true } };
  }

  /** Starts a backfill of the partition's expired events from `this.#next`, when there are any. */
  async #checkHub(signal: AbortSignal): Promise<boolean> {
    if (this.#next === undefined) return false;
    const props = await this.hub.getPartitionProperties(this.partitionId, signal);
    this.#props = props;
    const lastExpired = Math.min(props.beginningSequenceNumber - 1, props.lastEnqueuedSequenceNumber);
    if (props.beginningSequenceNumber < 0 || lastExpired < this.#next) return false;
    this.#begin(this.#next, lastExpired);
    return true;
  }

  #begin(from: number, to: number): void {
    const { progress, emit, logger } = this.deps;
    if (!progress.isActive(this.partitionId)) {
      emit({ type: 'backfillStarted', partitionId: this.partitionId, fromSequenceNumber: from, toSequenceNumber: to });
      logger.warn('events expired from the hub before they were read: reading them from Capture', {
        partitionId: this.partitionId,
        fromSequenceNumber: from,
        toSequenceNumber: to,
      });
    }
    progress.begin(this.partitionId, from, to);
    this.#rangeEnd = to;
    this.#chunks = this.deps.capture(this.partitionId).readRange(from, to, undefined);
  }

  async #readChunk(signal: AbortSignal): Promise<void> {
    const chunks = this.#chunks!;
    const step = await raceAbort(chunks.next(), signal);
    if (step.done) {
      this.#chunks = undefined;
      this.#next = Math.max(this.#next ?? 0, this.#rangeEnd + 1);
      // More may have expired while the backfill ran: go on from Capture before opening the hub.
      if (this.#held.length === 0 && (await this.#checkHub(signal))) return;
      this.#finish();
      return;
    }
    const chunk = step.value;
    if (chunk.kind === 'gap') {
      this.#reportGap(chunk.fromSequenceNumber, chunk.toSequenceNumber);
      return;
    }
    this.deps.counters.eventsBackfilled += chunk.records.length;
    this.#backfilled += chunk.records.length;
    this.#queue.push(...chunk.records.map(receivedEventOf));
  }

  #reportGap(from: number, to: number): void {
    const events = to - from + 1;
    const { counters, emit, logger } = this.deps;
    counters.eventsMissingFromCapture += events;
    counters.eventsLostToRetention += events;
    emit({ type: 'captureGap', partitionId: this.partitionId, fromSequenceNumber: from, toSequenceNumber: to, events });
    logger.error('events expired from the hub and are not in Capture: lost', {
      partitionId: this.partitionId,
      fromSequenceNumber: from,
      toSequenceNumber: to,
      eventsLost: events,
      hint: 'a capture file was deleted, or its window has not closed yet (files appear once their window closes)',
    });
    // The handed-over position moves past the gap, so the next events are not taken for another gap.
    this.#next = Math.max(this.#next ?? 0, to + 1);
  }

  #finish(): void {
    const { progress, emit, logger } = this.deps;
    if (!progress.isActive(this.partitionId)) return;
    progress.end(this.partitionId);
    emit({ type: 'backfillFinished', partitionId: this.partitionId, events: this.#backfilled });
    logger.info('backfill from Capture finished; reading the hub', {
      partitionId: this.partitionId,
      events: this.#backfilled,
      next: this.#next,
    });
    this.#backfilled = 0;
  }

  lastEnqueued(): LastEnqueuedInfo | undefined {
    const live = this.#live?.lastEnqueued();
    if (live) return live;
    const p = this.#props;
    if (!p || p.lastEnqueuedSequenceNumber < 0) return undefined;
    return {
      sequenceNumber: p.lastEnqueuedSequenceNumber,
      offset: p.lastEnqueuedOffset,
      enqueuedOn: p.lastEnqueuedOnUtc,
      retrievedOn: new Date(),
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.deps.progress.end(this.partitionId);
    await this.#chunks?.return(undefined).catch(() => undefined);
    await this.#live?.close();
  }
}
