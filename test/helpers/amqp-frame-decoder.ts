/**
 * An AMQP 1.0 decoder for tests, written from the OASIS AMQP 1.0 specification only (part 1 "Types",
 * section 1.6 "Encodings"; part 2 "Transport", 2.2 protocol headers and 2.3 frames; 5.3 SASL frames).
 * It deliberately shares no code with rhea: it is the independent reader of what the emulator writes.
 *
 * Every value keeps its wire type (`{ type: 'uint', value: 65536, code: 0x70 }`), so a test can tell a
 * `uint` from a `ulong`, a symbol from a string, and a list written with 3 fields from one with 14.
 * Decimals are kept as their raw bytes (nothing here needs their value).
 */

export type AmqpValue =
  | { type: 'null'; code: number; value: null }
  | { type: 'boolean'; code: number; value: boolean }
  | {
      type: 'ubyte' | 'ushort' | 'uint' | 'byte' | 'short' | 'int' | 'float' | 'double' | 'char';
      code: number;
      value: number;
    }
  | { type: 'ulong' | 'long'; code: number; value: bigint }
  /** Milliseconds since the Unix epoch. */
  | { type: 'timestamp'; code: number; value: bigint }
  | { type: 'uuid'; code: number; value: string }
  | { type: 'binary' | 'decimal32' | 'decimal64' | 'decimal128'; code: number; value: Buffer }
  | { type: 'string' | 'symbol'; code: number; value: string }
  | { type: 'list' | 'array'; code: number; value: AmqpValue[] }
  | { type: 'map'; code: number; value: Array<[AmqpValue, AmqpValue]> }
  | { type: 'described'; code: number; descriptor: AmqpValue; value: AmqpValue };

export class AmqpDecodeError extends Error {
  override name = 'AmqpDecodeError';
  /** From AmqpFrameReader.push: the units that chunk completed before the malformed one. */
  units: AmqpUnit[] = [];
}

/** Fixed-width primitive encodings: code → [type, width in bytes, reader]. Spec part 1, 1.6.1–1.6.22. */
const FIXED: Record<number, [AmqpValue['type'], number, (b: Buffer, at: number) => unknown]> = {
  0x40: ['null', 0, () => null],
  0x41: ['boolean', 0, () => true],
  0x42: ['boolean', 0, () => false],
  0x56: ['boolean', 1, (b, at) => readByte(b, at, 'boolean') !== 0],
  0x50: ['ubyte', 1, (b, at) => b.readUInt8(at)],
  0x60: ['ushort', 2, (b, at) => b.readUInt16BE(at)],
  0x70: ['uint', 4, (b, at) => b.readUInt32BE(at)],
  0x52: ['uint', 1, (b, at) => b.readUInt8(at)],
  0x43: ['uint', 0, () => 0],
  0x80: ['ulong', 8, (b, at) => b.readBigUInt64BE(at)],
  0x53: ['ulong', 1, (b, at) => BigInt(b.readUInt8(at))],
  0x44: ['ulong', 0, () => 0n],
  0x51: ['byte', 1, (b, at) => b.readInt8(at)],
  0x61: ['short', 2, (b, at) => b.readInt16BE(at)],
  0x71: ['int', 4, (b, at) => b.readInt32BE(at)],
  0x54: ['int', 1, (b, at) => b.readInt8(at)],
  0x81: ['long', 8, (b, at) => b.readBigInt64BE(at)],
  0x55: ['long', 1, (b, at) => BigInt(b.readInt8(at))],
  0x72: ['float', 4, (b, at) => b.readFloatBE(at)],
  0x82: ['double', 8, (b, at) => b.readDoubleBE(at)],
  0x73: ['char', 4, (b, at) => b.readUInt32BE(at)],
  0x83: ['timestamp', 8, (b, at) => b.readBigInt64BE(at)],
  0x98: ['uuid', 16, (b, at) => formatUuid(b.subarray(at, at + 16))],
  0x74: ['decimal32', 4, (b, at) => Buffer.from(b.subarray(at, at + 4))],
  0x84: ['decimal64', 8, (b, at) => Buffer.from(b.subarray(at, at + 8))],
  0x94: ['decimal128', 16, (b, at) => Buffer.from(b.subarray(at, at + 16))],
};

/** Variable-width encodings: code → [type, width of the size prefix]. */
const VARIABLE: Record<number, ['binary' | 'string' | 'symbol', 1 | 4]> = {
  0xa0: ['binary', 1],
  0xb0: ['binary', 4],
  0xa1: ['string', 1],
  0xb1: ['string', 4],
  0xa3: ['symbol', 1],
  0xb3: ['symbol', 4],
};

function readByte(b: Buffer, at: number, what: string): number {
  if (at >= b.length) throw new AmqpDecodeError(`truncated ${what} at byte ${at}`);
  return b[at]!;
}

function formatUuid(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function need(b: Buffer, at: number, bytes: number, what: string): void {
  if (at + bytes > b.length)
    throw new AmqpDecodeError(`truncated ${what}: needs ${bytes} bytes at ${at}, ${b.length - at} left`);
}

function readSize(b: Buffer, at: number, width: 1 | 4, what: string): number {
  need(b, at, width, `${what} size`);
  return width === 1 ? b.readUInt8(at) : b.readUInt32BE(at);
}

/** A constructor: a primitive format code, or 0x00 + descriptor + constructor (spec part 1, 1.2). */
type Constructor = { code: number } | { code: number; descriptor: AmqpValue; inner: Constructor };

function readConstructor(b: Buffer, at: number): [Constructor, number] {
  const code = readByte(b, at, 'constructor');
  if (code !== 0x00) return [{ code }, at + 1];
  const [descriptor, afterDescriptor] = decodeValue(b, at + 1);
  const [inner, next] = readConstructor(b, afterDescriptor);
  return [{ code, descriptor, inner }, next];
}

function readWithConstructor(b: Buffer, at: number, ctor: Constructor): [AmqpValue, number] {
  if ('descriptor' in ctor) {
    const [value, next] = readWithConstructor(b, at, ctor.inner);
    return [{ type: 'described', code: 0x00, descriptor: ctor.descriptor, value }, next];
  }
  const code = ctor.code;
  const fixed = FIXED[code];
  if (fixed) {
    const [type, width, read] = fixed;
    need(b, at, width, type);
    return [{ type, code, value: read(b, at) } as AmqpValue, at + width];
  }
  const variable = VARIABLE[code];
  if (variable) {
    const [type, width] = variable;
    const size = readSize(b, at, width, type);
    const start = at + width;
    need(b, start, size, type);
    const bytes = b.subarray(start, start + size);
    const value = type === 'binary' ? Buffer.from(bytes) : bytes.toString(type === 'symbol' ? 'ascii' : 'utf8');
    return [{ type, code, value } as AmqpValue, start + size];
  }
  switch (code) {
    case 0x45:
      return [{ type: 'list', code, value: [] }, at];
    case 0xc0:
    case 0xd0:
      return readCompound(b, at, code, code === 0xc0 ? 1 : 4, 'list');
    case 0xc1:
    case 0xd1:
      return readCompound(b, at, code, code === 0xc1 ? 1 : 4, 'map');
    case 0xe0:
    case 0xf0:
      return readArray(b, at, code, code === 0xe0 ? 1 : 4);
    default:
      throw new AmqpDecodeError(`unknown format code 0x${code.toString(16).padStart(2, '0')} at byte ${at - 1}`);
  }
}

/** list8/32 and map8/32: size, count, then `count` complete values (a map's count is keys + values). */
function readCompound(b: Buffer, at: number, code: number, width: 1 | 4, type: 'list' | 'map'): [AmqpValue, number] {
  const size = readSize(b, at, width, type);
  const end = at + width + size;
  need(b, at + width, size, type);
  const count = readSize(b, at + width, width, `${type} count`);
  const items: AmqpValue[] = [];
  let next = at + 2 * width;
  for (let i = 0; i < count; i++) {
    if (next >= end)
      throw new AmqpDecodeError(`${type} at byte ${at} declares ${count} elements but its ${size} bytes hold ${i}`);
    const [item, after] = decodeValue(b, next);
    items.push(item);
    next = after;
  }
  if (next !== end)
    throw new AmqpDecodeError(`${type} at byte ${at}: size says ${size} bytes, elements used ${next - at - width}`);
  if (type === 'list') return [{ type, code, value: items }, end];
  if (count % 2 !== 0) throw new AmqpDecodeError(`map at byte ${at} has an odd element count ${count}`);
  const pairs: Array<[AmqpValue, AmqpValue]> = [];
  for (let i = 0; i < items.length; i += 2) pairs.push([items[i]!, items[i + 1]!]);
  return [{ type: 'map', code, value: pairs }, end];
}

/** array8/32: size, count, one constructor, then `count` values without constructors. */
function readArray(b: Buffer, at: number, code: number, width: 1 | 4): [AmqpValue, number] {
  const size = readSize(b, at, width, 'array');
  const end = at + width + size;
  need(b, at + width, size, 'array');
  const count = readSize(b, at + width, width, 'array count');
  const [ctor, first] = readConstructor(b, at + 2 * width);
  const items: AmqpValue[] = [];
  let next = first;
  for (let i = 0; i < count; i++) {
    const [item, after] = readWithConstructor(b, next, ctor);
    items.push(item);
    next = after;
  }
  if (next !== end)
    throw new AmqpDecodeError(`array at byte ${at}: size says ${size} bytes, elements used ${next - at - width}`);
  return [{ type: 'array', code, value: items }, end];
}

/** Decodes one value at `at`; returns it and the offset after it. */
export function decodeValue(b: Buffer, at = 0): [AmqpValue, number] {
  const [ctor, next] = readConstructor(b, at);
  return readWithConstructor(b, next, ctor);
}

/** Decodes consecutive values filling `b` (e.g. the sections of a message). */
export function decodeAll(b: Buffer): AmqpValue[] {
  const values: AmqpValue[] = [];
  for (let at = 0; at < b.length; ) {
    const [value, next] = decodeValue(b, at);
    values.push(value);
    at = next;
  }
  return values;
}

/**
 * Converts a decoded value to plain JavaScript for comparisons: numbers, bigints (ulong, long,
 * timestamp), strings (string, symbol, uuid), Buffers, arrays, Maps for maps, and
 * `{ descriptor, value }` for described values.
 */
export function plain(v: AmqpValue): unknown {
  switch (v.type) {
    case 'list':
    case 'array':
      return v.value.map(plain);
    case 'map':
      return new Map(v.value.map(([k, val]) => [plain(k), plain(val)]));
    case 'described':
      return { descriptor: plain(v.descriptor), value: plain(v.value) };
    default:
      return v.value;
  }
}

/** Performative descriptors (spec part 2, 2.7; part 5, 5.3.3), by numeric code and by symbolic name. */
const PERFORMATIVES: Record<number, string> = {
  0x10: 'open',
  0x11: 'begin',
  0x12: 'attach',
  0x13: 'flow',
  0x14: 'transfer',
  0x15: 'disposition',
  0x16: 'detach',
  0x17: 'end',
  0x18: 'close',
  0x40: 'sasl-mechanisms',
  0x41: 'sasl-init',
  0x42: 'sasl-challenge',
  0x43: 'sasl-response',
  0x44: 'sasl-outcome',
};

/** The name of a descriptor: `0x0000000000000012` and `amqp:attach:list` both give `attach`. */
export function descriptorName(descriptor: AmqpValue): string | undefined {
  if (descriptor.type === 'ulong') {
    const code = descriptor.value;
    return code >> 32n === 0n ? PERFORMATIVES[Number(code)] : undefined;
  }
  if (descriptor.type === 'symbol') return /^amqp:([a-z-]+):list$/.exec(descriptor.value)?.[1];
  return undefined;
}

/** An 8-byte protocol header: `AMQP`, protocol id (0 AMQP, 2 TLS, 3 SASL), major, minor, revision. */
export interface ProtocolHeader {
  kind: 'header';
  protocolId: number;
  version: string;
}

export interface AmqpFrame {
  kind: 'frame';
  /** Frame type: 0 AMQP, 1 SASL. */
  type: number;
  channel: number;
  /** `open`, `attach`, `sasl-outcome`, ...; undefined for an empty frame (a heartbeat). */
  performative: string | undefined;
  /** The performative's described value as decoded; undefined for an empty frame. */
  body: AmqpValue | undefined;
  /** The performative's fields exactly as written: a list with 3 elements on the wire has length 3. */
  fields: AmqpValue[];
  /** What follows the performative in the frame body (a transfer's message bytes). */
  payload: Buffer;
  /** The frame's size field: header, extended header and body. */
  size: number;
}

export type AmqpUnit = ProtocolHeader | AmqpFrame;

const AMQP = Buffer.from('AMQP', 'ascii');
/** Spec part 2, 2.3.1: the size field counts the 8-byte frame header, so it is at least 8. */
const FRAME_HEADER_BYTES = 8;

/** Decodes one complete frame (its bytes from the size field on). */
export function decodeFrame(bytes: Buffer): AmqpFrame {
  need(bytes, 0, FRAME_HEADER_BYTES, 'frame header');
  const size = bytes.readUInt32BE(0);
  const doff = bytes.readUInt8(4);
  const type = bytes.readUInt8(5);
  const channel = bytes.readUInt16BE(6);
  if (size !== bytes.length) throw new AmqpDecodeError(`frame size field ${size} but ${bytes.length} bytes given`);
  if (doff < 2 || doff * 4 > size)
    throw new AmqpDecodeError(`frame data offset ${doff} (×4 bytes) outside a frame of ${size} bytes`);
  if (type !== 0 && type !== 1) throw new AmqpDecodeError(`unknown frame type ${type}`);
  const body = bytes.subarray(doff * 4);
  if (body.length === 0)
    return {
      kind: 'frame',
      type,
      channel,
      performative: undefined,
      body: undefined,
      fields: [],
      payload: Buffer.alloc(0),
      size,
    };
  const [performative, end] = decodeValue(body, 0);
  if (performative.type !== 'described')
    throw new AmqpDecodeError(`frame body starts with a ${performative.type}, not a described performative`);
  const name = descriptorName(performative.descriptor);
  if (name === undefined)
    throw new AmqpDecodeError(
      `unknown performative descriptor ${JSON.stringify(plain(performative.descriptor), bigintJson)}`,
    );
  if (performative.value.type !== 'list')
    throw new AmqpDecodeError(`${name} is a described ${performative.value.type}, not a list`);
  const fields = performative.value.value;
  return {
    kind: 'frame',
    type,
    channel,
    performative: name,
    body: performative,
    fields,
    payload: Buffer.from(body.subarray(end)),
    size,
  };
}

function bigintJson(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/**
 * Splits a byte stream into protocol headers and frames, whatever the chunking. A header may come at
 * any frame boundary (the AMQP header follows the SASL exchange on the same socket); a size field never
 * starts with the bytes `AMQP` in practice (that would be a frame of over 1 GiB).
 */
export class AmqpFrameReader {
  private pending: Buffer = Buffer.alloc(0);

  /**
   * Adds bytes; returns every unit they complete, in order. Throws AmqpDecodeError on malformed input,
   * carrying the units completed before it (`error.units`).
   */
  push(chunk: Buffer): AmqpUnit[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const units: AmqpUnit[] = [];
    try {
      while (this.pending.length >= FRAME_HEADER_BYTES) {
        if (this.pending.subarray(0, 4).equals(AMQP)) {
          const h = this.pending.subarray(4, 8);
          units.push({ kind: 'header', protocolId: h[0]!, version: `${h[1]}.${h[2]}.${h[3]}` });
          this.pending = this.pending.subarray(8);
          continue;
        }
        const size = this.pending.readUInt32BE(0);
        if (size < FRAME_HEADER_BYTES) throw new AmqpDecodeError(`frame size ${size} is below the 8-byte frame header`);
        if (this.pending.length < size) break;
        units.push(decodeFrame(this.pending.subarray(0, size)));
        this.pending = this.pending.subarray(size);
      }
    } catch (error) {
      if (error instanceof AmqpDecodeError) error.units = units;
      throw error;
    }
    return units;
  }

  /** Bytes received that do not yet form a complete header or frame. */
  get buffered(): number {
    return this.pending.length;
  }
}
