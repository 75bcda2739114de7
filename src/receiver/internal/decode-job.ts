import type { ReceivedEvent } from '../../backends/consumer.ts';
import type { DecodeContext } from '../../decode/decoder.ts';

/** The fields of an event the decoders read; the rest stays in the pump (dead letters use the whole event). */
export type JobEvent = Pick<
  ReceivedEvent,
  'body' | 'sequenceNumber' | 'offset' | 'enqueuedTime' | 'partitionKey' | 'properties' | 'messageId'
>;

/**
 * A batch of events as a decode thread receives it: in columns, every body copied once into one buffer that is
 * transferred, not cloned. Sent as objects, each event cost a structured clone of its object and its Date, and
 * each body the clone of its whole backing store (a view into rhea's socket buffers: about 1.5–2× the bodies'
 * bytes in the pipeline bench); in columns the pipeline thread does one copy per body and the clone moves a few
 * arrays: a round trip of 100-event jobs took 4.0 instead of 5.8 µs of CPU per event, both threads together
 * (medians of 10 interleaved rounds, 2.7 against 4.8 fastest; 2026-11-28, shared machine).
 */
export interface DecodeJob {
  readonly id: number;
  readonly context: DecodeContext;
  /** The bodies one after the other: event i's is `bodies[ends[i - 1] ?? 0, ends[i])`. */
  readonly bodies: Uint8Array;
  readonly ends: Float64Array;
  readonly sequenceNumbers: Float64Array;
  /** `enqueuedTime.getTime()`; NaN for an event without a valid Date (the decoders then use the observed time). */
  readonly enqueuedMs: Float64Array;
  readonly offsets: string[];
  /** Present only when some event of the batch has one; per event, undefined where it has none. */
  readonly partitionKeys?: (string | undefined)[];
  readonly properties?: (ReceivedEvent['properties'] | undefined)[];
  readonly messageIds?: (ReceivedEvent['messageId'] | undefined)[];
}

/**
 * Events a decode thread decodes and encodes at a time (decode-worker.ts). A job's events, parsed JSON and
 * records, held until the whole job was encoded, were alive at most of the thread's young-generation
 * collections (its young generation is small, see decode-pool.ts): each collection copied them, V8 then
 * allocated them straight in the old generation (allocation-site pretenuring), and they died there, for full
 * collections to find. A slice's garbage is dead before the next slice: 84,000 events through one thread
 * took 115 instead of 424 ms of young collections and 2 full collections instead of 19 (2026-11-28); the
 * stages bench compares both ways. 16.
 */
export const DECODE_SLICE_EVENTS = 16;

/** The job for `events`, and the buffers to transfer with it. */
export function packDecodeJob(
  id: number,
  events: readonly ReceivedEvent[],
  context: DecodeContext,
): { job: DecodeJob; transfer: ArrayBuffer[] } {
  const n = events.length;
  let total = 0;
  for (let i = 0; i < n; i++) total += events[i]!.body.byteLength;
  const bodies = new Uint8Array(total);
  const ends = new Float64Array(n);
  const sequenceNumbers = new Float64Array(n);
  const enqueuedMs = new Float64Array(n);
  const offsets = new Array<string>(n);
  let partitionKeys: (string | undefined)[] | undefined;
  let properties: (ReceivedEvent['properties'] | undefined)[] | undefined;
  let messageIds: (ReceivedEvent['messageId'] | undefined)[] | undefined;
  let at = 0;
  for (let i = 0; i < n; i++) {
    const e = events[i]!;
    bodies.set(e.body, at);
    at += e.body.byteLength;
    ends[i] = at;
    sequenceNumbers[i] = e.sequenceNumber;
    enqueuedMs[i] = e.enqueuedTime instanceof Date ? e.enqueuedTime.getTime() : Number.NaN;
    offsets[i] = e.offset;
    if (e.partitionKey !== undefined) (partitionKeys ??= new Array(n))[i] = e.partitionKey;
    if (e.properties !== undefined) (properties ??= new Array(n))[i] = e.properties;
    if (e.messageId !== undefined) (messageIds ??= new Array(n))[i] = e.messageId;
  }
  const job: DecodeJob = {
    id,
    context,
    bodies,
    ends,
    sequenceNumbers,
    enqueuedMs,
    offsets,
    ...(partitionKeys ? { partitionKeys } : {}),
    ...(properties ? { properties } : {}),
    ...(messageIds ? { messageIds } : {}),
  };
  return { job, transfer: [bodies.buffer, ends.buffer, sequenceNumbers.buffer, enqueuedMs.buffer] };
}

/** The events of a job from index `from` up to `to` (default all), each body a view into the job's buffer. */
export function unpackDecodeJob(job: DecodeJob, from = 0, to = job.ends.length): JobEvent[] {
  const n = Math.max(0, Math.min(to, job.ends.length) - from);
  const events = new Array<JobEvent>(n);
  let start = from > 0 ? job.ends[from - 1]! : 0;
  for (let k = 0; k < n; k++) {
    const i = from + k;
    const end = job.ends[i]!;
    const partitionKey = job.partitionKeys?.[i];
    const properties = job.properties?.[i];
    const messageId = job.messageIds?.[i];
    events[k] = {
      body: job.bodies.subarray(start, end),
      sequenceNumber: job.sequenceNumbers[i]!,
      offset: job.offsets[i]!,
      enqueuedTime: new Date(job.enqueuedMs[i]!),
      ...(partitionKey !== undefined ? { partitionKey } : {}),
      ...(properties !== undefined ? { properties } : {}),
      ...(messageId !== undefined ? { messageId } : {}),
    };
    start = end;
  }
  return events;
}
