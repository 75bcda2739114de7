/**
 * Decodes a delivered message's bytes into the same fields rhea's `message.decode` produces, for the
 * message shapes Event Hubs delivers: a header (skipped: nothing downstream reads it), delivery and message
 * annotations, properties, application properties and one data section, with scalar values only. rhea's
 * generic decoder builds a typed wrapper per value and unwraps it again; in the streaming backend's drain
 * profile it was 45 % of the client's CPU. This decoder reads the same bytes in one pass.
 *
 * Anything outside that subset (a list, map, array or described value inside a section, a uuid, char,
 * decimal or boolean-byte value, a long beyond what rhea turns into a number, a body that is not exactly
 * one data section, a footer) goes to rhea's own decoder, so the result is always what rhea would return.
 * test/unit/backends/streaming/message-decoder.test.ts compares both on every supported encoding.
 */
import type { Message } from 'rhea-promise';
import { message as rheaMessage } from 'rhea-promise';

const SECTION_HEADER = 0x70;
const SECTION_DELIVERY_ANNOTATIONS = 0x71;
const SECTION_MESSAGE_ANNOTATIONS = 0x72;
const SECTION_PROPERTIES = 0x73;
const SECTION_APPLICATION_PROPERTIES = 0x74;
const SECTION_DATA = 0x75;
const DATA_SECTION_TYPECODE = SECTION_DATA;

/** The `properties` section's fields, in list order (AMQP 1.0 part 3, §3.2.4), as rhea names them. */
const PROPERTY_FIELDS = [
  'message_id',
  'user_id',
  'to',
  'subject',
  'reply_to',
  'correlation_id',
  'content_type',
  'content_encoding',
  'absolute_expiry_time',
  'creation_time',
  'group_id',
  'group_sequence',
  'reply_to_group_id',
] as const;

/** 2^32; rhea turns a 64-bit integer into a number only when its high word is within ±2097152. */
const TWO_POW_32 = 0x1_0000_0000;
const SAFE_HIGH_WORD = 2_097_153;

/** Thrown (and caught below) when the bytes leave the supported subset: rhea decodes them instead. */
class Unsupported extends Error {}
const UNSUPPORTED = new Unsupported('outside the fast decoder subset');

/** A cursor over one message's bytes; `end` is where the last variable-width value or compound ends. */
interface Cursor {
  readonly buf: Buffer;
  pos: number;
  end: number;
}

/**
 * The map keys every Event Hubs delivery carries, as the bytes of their symbol (0xa3, length, ASCII): a key
 * with these bytes is answered with the same string each time instead of a new one per message.
 */
const KNOWN_KEYS = [
  'x-opt-sequence-number',
  'x-opt-offset',
  'x-opt-enqueued-time',
  'x-opt-partition-key',
  'last_enqueued_sequence_number',
  'last_enqueued_offset',
  'last_enqueued_time_utc',
  'runtime_info_retrieval_time_utc',
].map((key) => ({ key, bytes: Buffer.from(key, 'ascii') }));

/** The known key whose bytes are `buf[start, end)`, or undefined. */
function knownKey(buf: Buffer, start: number, end: number): string | undefined {
  const length = end - start;
  for (const known of KNOWN_KEYS) {
    const bytes = known.bytes;
    if (bytes.length !== length || bytes[length - 1] !== buf[end - 1]) continue;
    let i = 0;
    while (i < length && bytes[i] === buf[start + i]) i++;
    if (i === length) return known.key;
  }
  return undefined;
}

function need(c: Cursor, bytes: number): void {
  if (c.pos + bytes > c.buf.length) throw UNSUPPORTED;
}

function readLong(c: Cursor): number {
  need(c, 8);
  const hi = c.buf.readInt32BE(c.pos);
  const lo = c.buf.readUInt32BE(c.pos + 4);
  c.pos += 8;
  if (hi >= SAFE_HIGH_WORD || hi <= -SAFE_HIGH_WORD) throw UNSUPPORTED;
  return hi * TWO_POW_32 + lo;
}

function readUlong(c: Cursor): number {
  need(c, 8);
  const hi = c.buf.readUInt32BE(c.pos);
  const lo = c.buf.readUInt32BE(c.pos + 4);
  c.pos += 8;
  if (hi >= SAFE_HIGH_WORD) throw UNSUPPORTED;
  return hi * TWO_POW_32 + lo;
}

/**
 * A variable-width value's bytes: a 1-byte (0xa_) or 4-byte (0xb_) length, then the bytes. Returns where
 * they start and sets `c.end` (and `c.pos`) to where they end.
 */
function readVariable(c: Cursor, code: number): number {
  let length: number;
  if (code < 0xb0) {
    need(c, 1);
    length = c.buf[c.pos++]!;
  } else {
    need(c, 4);
    length = c.buf.readUInt32BE(c.pos);
    c.pos += 4;
  }
  need(c, length);
  const start = c.pos;
  c.pos += length;
  c.end = c.pos;
  return start;
}

/** One scalar value, as rhea's decoder and `types.unwrap` return it. */
function readScalar(c: Cursor): unknown {
  need(c, 1);
  const code = c.buf[c.pos++]!;
  const b = c.buf;
  switch (code) {
    case 0x40:
      return null;
    case 0x41:
      return true;
    case 0x42:
      return false;
    case 0x43:
    case 0x44:
      return 0; // uint0, ulong0
    case 0x50:
    case 0x52:
    case 0x53:
      need(c, 1);
      return b[c.pos++]!; // ubyte, smalluint, smallulong
    case 0x51:
    case 0x54:
    case 0x55:
      need(c, 1);
      return b.readInt8(c.pos++); // byte, smallint, smalllong
    case 0x60:
      need(c, 2);
      c.pos += 2;
      return b.readUInt16BE(c.pos - 2);
    case 0x61:
      need(c, 2);
      c.pos += 2;
      return b.readInt16BE(c.pos - 2);
    case 0x70:
      need(c, 4);
      c.pos += 4;
      return b.readUInt32BE(c.pos - 4);
    case 0x71:
      need(c, 4);
      c.pos += 4;
      return b.readInt32BE(c.pos - 4);
    case 0x72:
      need(c, 4);
      c.pos += 4;
      return b.readFloatBE(c.pos - 4);
    case 0x80:
      return readUlong(c);
    case 0x81:
      return readLong(c);
    case 0x82:
      need(c, 8);
      c.pos += 8;
      return b.readDoubleBE(c.pos - 8);
    case 0x83:
      return new Date(readLong(c));
    case 0xa0:
    case 0xb0: {
      const s = readVariable(c, code);
      return b.subarray(s, c.end);
    }
    case 0xa1:
    case 0xb1: {
      const s = readVariable(c, code);
      return b.toString('utf8', s, c.end);
    }
    case 0xa3:
    case 0xb3: {
      const s = readVariable(c, code);
      return knownKey(b, s, c.end) ?? b.toString('ascii', s, c.end);
    }
    default:
      throw UNSUPPORTED;
  }
}

/**
 * A compound's header (list or map): advances past it, returns its element count and sets `c.end` to where
 * the compound ends.
 */
function readCompoundHeader(c: Cursor, listOrMap: 'list' | 'map'): number {
  need(c, 1);
  const code = c.buf[c.pos++]!;
  if (listOrMap === 'list' && code === 0x45) {
    c.end = c.pos;
    return 0;
  }
  const small = listOrMap === 'list' ? 0xc0 : 0xc1;
  const large = listOrMap === 'list' ? 0xd0 : 0xd1;
  let size: number;
  let count: number;
  if (code === small) {
    need(c, 2);
    size = c.buf[c.pos]!;
    count = c.buf[c.pos + 1]!;
    c.pos += 2;
    size -= 1;
  } else if (code === large) {
    need(c, 8);
    size = c.buf.readUInt32BE(c.pos) - 4;
    count = c.buf.readUInt32BE(c.pos + 4);
    c.pos += 8;
  } else {
    throw UNSUPPORTED;
  }
  if (size < 0) throw UNSUPPORTED;
  need(c, size);
  c.end = c.pos + size;
  return count;
}

/** A map section's entries as rhea's `mapify` builds them: string keys, scalar values. */
function readMap(c: Cursor): Record<string, unknown> {
  const count = readCompoundHeader(c, 'map');
  const end = c.end;
  if (count % 2 !== 0) throw UNSUPPORTED;
  const out: Record<string, unknown> = {};
  for (let i = 0; i < count; i += 2) {
    const key = readScalar(c);
    if (typeof key !== 'string') throw UNSUPPORTED;
    out[key] = readScalar(c);
  }
  if (c.pos !== end) throw UNSUPPORTED;
  return out;
}

/**
 * Decodes a format-0 message. The result has the fields rhea's `message.decode` sets that the streaming
 * backend reads (all of them except the header's); a data body is a `{ typecode: 0x75, content }` section.
 */
export function decodeMessage(bytes: Buffer): Message {
  return tryDecodeFast(bytes) ?? (rheaMessage.decode(bytes) as unknown as Message);
}

/** The one-pass decoding, or undefined when the bytes leave the supported subset. */
export function tryDecodeFast(bytes: Buffer): Message | undefined {
  try {
    return decodeFast(bytes);
  } catch (error) {
    if (error === UNSUPPORTED) return undefined;
    throw error;
  }
}

function decodeFast(bytes: Buffer): Message {
  const c: Cursor = { buf: bytes, pos: 0, end: 0 };
  const msg: Record<string, unknown> = {};
  let body: Buffer | undefined;
  while (c.pos < bytes.length) {
    // A section: 0x00, a smallulong descriptor, its value.
    need(c, 3);
    if (bytes[c.pos] !== 0x00 || bytes[c.pos + 1] !== 0x53) throw UNSUPPORTED;
    const section = bytes[c.pos + 2]!;
    c.pos += 3;
    switch (section) {
      case SECTION_HEADER:
        readCompoundHeader(c, 'list');
        c.pos = c.end;
        break;
      case SECTION_DELIVERY_ANNOTATIONS:
        msg.delivery_annotations = readMap(c);
        break;
      case SECTION_MESSAGE_ANNOTATIONS:
        msg.message_annotations = readMap(c);
        break;
      case SECTION_APPLICATION_PROPERTIES:
        msg.application_properties = readMap(c);
        break;
      case SECTION_PROPERTIES: {
        const count = readCompoundHeader(c, 'list');
        const end = c.end;
        if (count > PROPERTY_FIELDS.length) throw UNSUPPORTED;
        for (let i = 0; i < count; i++) {
          const value = readScalar(c);
          if (value !== null) msg[PROPERTY_FIELDS[i]!] = value;
        }
        if (c.pos !== end) throw UNSUPPORTED;
        break;
      }
      case SECTION_DATA: {
        if (body !== undefined) throw UNSUPPORTED; // several data sections: rhea collects them
        need(c, 1);
        const code = bytes[c.pos++]!;
        if (code !== 0xa0 && code !== 0xb0) throw UNSUPPORTED;
        const start = readVariable(c, code);
        body = bytes.subarray(start, c.end);
        break;
      }
      default:
        throw UNSUPPORTED;
    }
  }
  if (body !== undefined) msg.body = { typecode: DATA_SECTION_TYPECODE, content: body, multiple: false };
  return msg as unknown as Message;
}
