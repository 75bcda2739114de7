/**
 * Event bytes in and out. Producers send batch envelopes (message format 0x80013700) whose body is one
 * data section per event, each a complete encoded AMQP message. The service stamps each event with
 * message annotations `x-opt-sequence-number` (long), `x-opt-offset` (string), `x-opt-enqueued-time`
 * (timestamp) and keeps `x-opt-partition-key`; with the runtime-metric capability, each delivery also
 * carries delivery annotations about the partition's last enqueued event (EVENT-HUBS-PROTOCOL.md).
 */
import {
  SECTION_DATA,
  SECTION_DELIVERY_ANNOTATIONS,
  SECTION_HEADER,
  SECTION_MESSAGE_ANNOTATIONS,
  encodeInt64,
  encodeMapSection,
  encodeString,
  encodeSymbol,
  readValueAt,
  scanMapEntries,
  scanSections,
} from './amqp-codec.ts';

const SEQUENCE_NUMBER = 'x-opt-sequence-number';
const OFFSET = 'x-opt-offset';
const ENQUEUED_TIME = 'x-opt-enqueued-time';
const PARTITION_KEY = 'x-opt-partition-key';
const STAMPED = new Set([SEQUENCE_NUMBER, OFFSET, ENQUEUED_TIME]);

const KEY_SEQUENCE_NUMBER = encodeSymbol(SEQUENCE_NUMBER);
const KEY_OFFSET = encodeSymbol(OFFSET);
const KEY_ENQUEUED_TIME = encodeSymbol(ENQUEUED_TIME);
const KEY_PARTITION_KEY = encodeSymbol(PARTITION_KEY);
const KEY_LAST_SEQUENCE = encodeSymbol('last_enqueued_sequence_number');
const KEY_LAST_OFFSET = encodeSymbol('last_enqueued_offset');
const KEY_LAST_TIME = encodeSymbol('last_enqueued_time_utc');
const KEY_RETRIEVAL_TIME = encodeSymbol('runtime_info_retrieval_time_utc');

export interface BatchContents {
  /** Each event's encoded message, as the producer encoded it. */
  events: Buffer[];
  /** The envelope's `x-opt-partition-key` annotation (the SDK copies the first event's). */
  partitionKey?: string;
  /**
   * The envelope's `com.microsoft:producer-*` annotations (idempotent producers; the SDK copies the first
   * event's, so the sequence number is the batch's first), by annotation name.
   */
  producerAnnotations?: Record<string, unknown>;
}

const PRODUCER_ANNOTATION_PREFIX = 'com.microsoft:producer-';

/** Splits a batch envelope into its events. Throws when the envelope is not a valid AMQP message. */
export function splitBatchEnvelope(envelope: Buffer): BatchContents {
  const events: Buffer[] = [];
  let partitionKey: string | undefined;
  let producerAnnotations: Record<string, unknown> | undefined;
  for (const s of scanSections(envelope)) {
    if (s.code === SECTION_DATA) {
      const value = readValueAt(envelope, s.valueStart);
      if (Buffer.isBuffer(value)) events.push(value);
    } else if (s.code === SECTION_MESSAGE_ANNOTATIONS) {
      for (const e of scanMapEntries(envelope, s.valueStart)) {
        if (e.key === PARTITION_KEY) {
          const v = readValueAt(envelope, e.valueStart);
          if (v !== null && v !== undefined) partitionKey = String(v);
        } else if (e.key.startsWith(PRODUCER_ANNOTATION_PREFIX)) {
          (producerAnnotations ??= {})[e.key] = readValueAt(envelope, e.valueStart);
        }
      }
    }
  }
  return {
    events,
    ...(partitionKey === undefined ? {} : { partitionKey }),
    ...(producerAnnotations === undefined ? {} : { producerAnnotations }),
  };
}

export interface StampedMessage {
  /** The message as delivered: the producer's sections with the service's annotations spliced in. */
  bytes: Buffer;
  /** Where delivery annotations go (just after the header section, per the section order). */
  deliveryAnnotationsAt: number;
  /** The event's partition key, when the producer set one. */
  partitionKey?: string;
}

export interface EventStamp {
  sequenceNumber: number;
  /** The offset as clients see it (OffsetFormat.text). */
  offset: string;
  enqueuedTimeMs: number;
  /** Used when the event itself has no `x-opt-partition-key` but its envelope had one. */
  partitionKey?: string;
}

/**
 * Adds the service annotations to an event's encoded message. Existing message annotations are kept
 * byte for byte except stale copies of the stamped keys (an event re-sent from a received one carries
 * them); a producer's delivery annotations are dropped, as they are hop-by-hop.
 */
export function stampEvent(message: Buffer, stamp: EventStamp): StampedMessage {
  const sections = scanSections(message);
  const kept: Buffer[] = [];
  let pairs = 0;
  let partitionKey: string | undefined;
  let headerEnd = 0;
  let insertAt = -1; // index into `parts` where the annotations section goes
  const parts: Buffer[] = [];
  for (const s of sections) {
    if (s.code === SECTION_HEADER) {
      parts.push(message.subarray(s.start, s.end));
      headerEnd = s.end - s.start;
    } else if (s.code === SECTION_DELIVERY_ANNOTATIONS) {
      continue;
    } else if (s.code === SECTION_MESSAGE_ANNOTATIONS) {
      for (const e of scanMapEntries(message, s.valueStart)) {
        if (STAMPED.has(e.key)) continue;
        if (e.key === PARTITION_KEY) {
          const v = readValueAt(message, e.valueStart);
          if (v !== null && v !== undefined) partitionKey = String(v);
        }
        kept.push(message.subarray(e.start, e.end));
        pairs++;
      }
      insertAt = parts.length;
    } else {
      if (insertAt < 0 && s.code > SECTION_MESSAGE_ANNOTATIONS) insertAt = parts.length;
      parts.push(message.subarray(s.start, s.end));
    }
  }
  if (insertAt < 0) insertAt = parts.length;
  if (partitionKey === undefined && stamp.partitionKey !== undefined) {
    partitionKey = stamp.partitionKey;
    kept.push(KEY_PARTITION_KEY, encodeString(partitionKey));
    pairs++;
  }
  kept.push(
    KEY_SEQUENCE_NUMBER,
    encodeInt64(0x81, stamp.sequenceNumber),
    KEY_OFFSET,
    encodeString(stamp.offset),
    KEY_ENQUEUED_TIME,
    encodeInt64(0x83, stamp.enqueuedTimeMs),
  );
  pairs += 3;
  parts.splice(insertAt, 0, encodeMapSection(SECTION_MESSAGE_ANNOTATIONS, kept, pairs));
  const bytes = Buffer.concat(parts);
  return partitionKey === undefined
    ? { bytes, deliveryAnnotationsAt: headerEnd }
    : { bytes, deliveryAnnotationsAt: headerEnd, partitionKey };
}

export interface RuntimeInfo {
  lastSequenceNumber: number;
  /** As clients see it (OffsetFormat.text). */
  lastOffset: string;
  lastEnqueuedTimeMs: number;
  retrievalTimeMs: number;
}

/** The delivery-annotations section carrying the receiver runtime metrics. */
export function runtimeInfoSection(info: RuntimeInfo): Buffer {
  return encodeMapSection(
    SECTION_DELIVERY_ANNOTATIONS,
    [
      KEY_LAST_SEQUENCE,
      encodeInt64(0x81, info.lastSequenceNumber),
      KEY_LAST_OFFSET,
      encodeString(info.lastOffset),
      KEY_LAST_TIME,
      encodeInt64(0x83, info.lastEnqueuedTimeMs),
      KEY_RETRIEVAL_TIME,
      encodeInt64(0x83, info.retrievalTimeMs),
    ],
    4,
  );
}
