/**
 * A one-pass protobuf writer for otlp-proto-encoder.ts. Strings are written once: an ASCII string is
 * copied while it is scanned (its byte length is its length, so the length prefix is known up front);
 * only a non-ASCII one takes a native path (Buffer.byteLength, then a UTF-8 write). A nested message
 * reserves room for its length prefix, guessed by the caller, and moves its content only when the guess
 * was wrong, so the output stays canonical (minimal varints) without a size pass.
 */

/** Strings longer than this take the native path even when ASCII: one C++ call beats a JS loop there. */
const NATIVE_STRING_CHARS = 256;

/** Bytes of the varint encoding of a non-negative integer below 2^32. */
export function varintSize(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  return 5;
}

/**
 * Writes the varint of a non-negative integer below 2^32 into `buf` at `p`, room already there; returns where
 * it ends.
 */
export function putVarint(buf: Uint8Array, p: number, value: number): number {
  let v = value >>> 0;
  while (v > 0x7f) {
    buf[p++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[p++] = v;
  return p;
}

export class ProtoWriter {
  buf: Buffer;
  pos = 0;

  /** @param capacity initial buffer size in bytes; the buffer doubles when it fills. */
  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(Math.max(64, capacity));
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    if (this.pos + n > this.buf.length) this.#grow(n);
  }

  #grow(n: number): void {
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** The bytes written so far (a view, not a copy). */
  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** A varint of a non-negative integer below 2^32 (tags, lengths, counts, enums). */
  uint32(value: number): void {
    this.ensure(5);
    this.pos = putVarint(this.buf, this.pos, value);
  }

  /**
   * An int64 varint from an integral double in [-2^63, 2^63): negative values in two's complement
   * (10 bytes), as protobuf encodes int64.
   */
  int64(value: number): void {
    if (value >= 0 && value <= 0xffffffff) return this.uint32(value);
    const negative = value < 0;
    const magnitude = negative ? -value : value;
    let low = magnitude >>> 0;
    let high = (magnitude / 0x100000000) >>> 0;
    if (negative) {
      low = ~low >>> 0;
      high = ~high >>> 0;
      low = (low + 1) >>> 0;
      if (low === 0) high = (high + 1) >>> 0;
    }
    this.ensure(10);
    const buf = this.buf;
    while (high > 0 || low > 0x7f) {
      buf[this.pos++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    buf[this.pos++] = low;
  }

  /** Little-endian fixed32. */
  fixed32(value: number): void {
    this.ensure(4);
    this.buf.writeUInt32LE(value >>> 0, this.pos);
    this.pos += 4;
  }

  /** Little-endian fixed64 from its two 32-bit halves. */
  fixed64(low: number, high: number): void {
    this.ensure(8);
    this.buf.writeUInt32LE(low >>> 0, this.pos);
    this.buf.writeUInt32LE(high >>> 0, this.pos + 4);
    this.pos += 8;
  }

  /** Little-endian IEEE 754 double. */
  double(value: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  /** Length-prefixed bytes. */
  bytes(value: Uint8Array): void {
    this.uint32(value.length);
    this.raw(value);
  }

  /** One byte: a tag below 128 or a small constant. */
  byte(value: number): void {
    this.ensure(1);
    this.buf[this.pos++] = value;
  }

  /** Bytes as they are (pre-encoded fields). */
  raw(value: Uint8Array): void {
    this.ensure(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  /**
   * A length-prefixed UTF-8 string. Lone surrogates become U+FFFD (EF BF BD), as TextEncoder and the
   * upstream serializer write them.
   */
  string(value: string): void {
    const n = value.length;
    if (n > NATIVE_STRING_CHARS) return this.#nativeString(value);
    this.ensure(n + 2);
    const buf = this.buf;
    const start = this.pos;
    // When ASCII, the byte length is n (≤ 256): a one- or two-byte length prefix.
    const p = this.asciiAt(value, n < 0x80 ? start + 1 : start + 2);
    if (p < 0) return this.#nativeString(value);
    if (n < 0x80) {
      buf[start] = n;
    } else {
      buf[start] = (n & 0x7f) | 0x80;
      buf[start + 1] = n >>> 7;
    }
    this.pos = p;
  }

  /**
   * Copies `value` to the buffer at `p` (room already ensured, `pos` unchanged) when it is ASCII, and returns
   * where it ends; -1, at the first other character, when it is not.
   */
  asciiAt(value: string, p: number): number {
    const buf = this.buf;
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i);
      if (c > 0x7f) return -1;
      buf[p++] = c;
    }
    return p;
  }

  #nativeString(value: string): void {
    const length = Buffer.byteLength(value, 'utf8');
    this.uint32(length);
    this.ensure(length);
    this.pos += this.buf.write(value, this.pos, length, 'utf8');
  }

  /**
   * Starts a length-delimited field's content after `reserve` bytes kept for its length; pass the return
   * value to `end()`. A good guess of the length's varint size saves a move of the content.
   */
  begin(reserve: number): number {
    this.ensure(reserve);
    const start = this.pos;
    this.pos += reserve;
    return start;
  }

  /** Writes the length of the content started at `start` with `reserve` bytes, moving it if needed. */
  end(start: number, reserve: number): void {
    const length = this.pos - start - reserve;
    const size = varintSize(length);
    if (size !== reserve) {
      this.ensure(size - reserve);
      this.buf.copyWithin(start + size, start + reserve, this.pos);
      this.pos += size - reserve;
    }
    putVarint(this.buf, start, length);
  }
}
