/**
 * The few AMQP 1.0 encodings the emulator writes by hand, and a section scanner. Events are stored as
 * encoded bytes and delivered as is (store once, send many), so message annotations are spliced into
 * the producer's bytes instead of decoding and re-encoding whole messages: the producer's properties,
 * application properties and body stay byte-faithful. Type codes: AMQP 1.0 spec, part 1 §1.6.
 */
import rhea from 'rhea';

const { Reader } = (rhea as any).types as { Reader: new (buffer: Buffer) => any };

/** Section descriptor codes (AMQP 1.0 part 3 §3.2). */
export const SECTION_HEADER = 0x70;
export const SECTION_DELIVERY_ANNOTATIONS = 0x71;
export const SECTION_MESSAGE_ANNOTATIONS = 0x72;
export const SECTION_DATA = 0x75;

export interface SectionSpan {
  /** Descriptor code, or -1 when the descriptor is symbolic and unknown. */
  code: number;
  /** Byte offset of the section (its 0x00 descriptor constructor). */
  start: number;
  /** Byte offset of the section's value (after the descriptor). */
  valueStart: number;
  /** Byte offset just past the section. */
  end: number;
}

const SYMBOLIC_SECTIONS: Record<string, number> = {
  'amqp:header:list': 0x70,
  'amqp:delivery-annotations:map': 0x71,
  'amqp:message-annotations:map': 0x72,
  'amqp:properties:list': 0x73,
  'amqp:application-properties:map': 0x74,
  'amqp:data:binary': 0x75,
  'amqp:amqp-sequence:list': 0x76,
  'amqp:value:*': 0x77,
  'amqp:footer:map': 0x78,
};

/** Splits an encoded message into its sections. Throws on malformed input. */
export function scanSections(buf: Buffer): SectionSpan[] {
  const reader = new Reader(buf);
  const spans: SectionSpan[] = [];
  while (reader.remaining() > 0) {
    const start = reader.position as number;
    if (buf[start] !== 0x00) throw new Error(`expected a described section at byte ${start}`);
    let code: number;
    let valueStart: number;
    if (buf[start + 1] === 0x53) {
      // smallulong descriptor: the common case
      code = buf[start + 2]!;
      valueStart = start + 3;
    } else {
      reader.position = start + 1;
      const descriptor = reader.read();
      valueStart = reader.position as number;
      const v = descriptor.value;
      code = typeof v === 'number' ? v : typeof v === 'string' ? (SYMBOLIC_SECTIONS[v] ?? -1) : Number(v);
    }
    reader.position = valueStart;
    reader.read();
    spans.push({ code, start, valueStart, end: reader.position as number });
  }
  return spans;
}

/** Reads the AMQP value at `at` (a binary for data sections). */
export function readValueAt(buf: Buffer, at: number): any {
  const reader = new Reader(buf);
  reader.position = at;
  return reader.read().value;
}

export interface MapEntrySpan {
  key: string;
  start: number;
  end: number;
  valueStart: number;
}

/** The entries of an encoded map at `at` (map8, map32 or null), with the byte span of each entry. */
export function scanMapEntries(buf: Buffer, at: number): MapEntrySpan[] {
  const ctor = buf[at];
  let count: number;
  let pos: number;
  if (ctor === 0xc1) {
    count = buf[at + 2]!;
    pos = at + 3;
  } else if (ctor === 0xd1) {
    count = buf.readUInt32BE(at + 5);
    pos = at + 9;
  } else if (ctor === 0x40) {
    return [];
  } else {
    throw new Error(`expected a map at byte ${at}, found constructor 0x${(ctor ?? 0).toString(16)}`);
  }
  const reader = new Reader(buf);
  reader.position = pos;
  const entries: MapEntrySpan[] = [];
  for (let i = 0; i < count; i += 2) {
    const start = reader.position as number;
    const key = String(reader.read().value);
    const valueStart = reader.position as number;
    reader.read();
    entries.push({ key, start, end: reader.position as number, valueStart });
  }
  return entries;
}

export function encodeSymbol(s: string): Buffer {
  const bytes = Buffer.from(s, 'ascii');
  if (bytes.length < 256) return Buffer.concat([Buffer.from([0xa3, bytes.length]), bytes]);
  const head = Buffer.alloc(5);
  head[0] = 0xb3;
  head.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([head, bytes]);
}

export function encodeString(s: string): Buffer {
  const bytes = Buffer.from(s, 'utf8');
  if (bytes.length < 256) return Buffer.concat([Buffer.from([0xa1, bytes.length]), bytes]);
  const head = Buffer.alloc(5);
  head[0] = 0xb1;
  head.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([head, bytes]);
}

/** Writes a long (0x81) or a timestamp (0x83, ms since the epoch) at `at`; returns the next offset. */
function writeInt64(buf: Buffer, at: number, code: 0x81 | 0x83, value: number): number {
  buf[at] = code;
  buf.writeBigInt64BE(BigInt(Math.trunc(value)), at + 1);
  return at + 9;
}

export function encodeInt64(code: 0x81 | 0x83, value: number): Buffer {
  const buf = Buffer.alloc(9);
  writeInt64(buf, 0, code, value);
  return buf;
}

/** A described map section (`0x00 0x53 code map32`) around already-encoded key/value pairs. */
export function encodeMapSection(code: number, entries: Buffer[], pairCount: number): Buffer {
  let size = 4; // the count field is part of map32's size
  for (const e of entries) size += e.length;
  const head = Buffer.alloc(12);
  head[0] = 0x00;
  head[1] = 0x53;
  head[2] = code;
  head[3] = 0xd1;
  head.writeUInt32BE(size, 4);
  head.writeUInt32BE(pairCount * 2, 8);
  return Buffer.concat([head, ...entries], 12 + size - 4);
}
