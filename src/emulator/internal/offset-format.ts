/**
 * How the emulator writes offsets. On a standard namespace an offset is the event's byte position in the
 * partition, as a decimal string. On a geo-replicated namespace the service makes offsets opaque strings
 * (the SDKs position by sequence number since then and carry offsets unread), so a client that parses or
 * compares offsets breaks there. `opaque` serves offsets a client cannot parse, order or do arithmetic on,
 * to prove it does not. `-1` (before the first event) and `@latest` keep their meaning in both.
 */
export interface OffsetFormat {
  readonly kind: 'numeric' | 'opaque';
  /** The offset text clients see for a byte position; `-1` stays `-1`. */
  text(position: number): string;
  /** The byte position of an offset text this format wrote, or undefined when it is not one. */
  parse(text: string): number | undefined;
}

export const NUMERIC_OFFSETS: OffsetFormat = {
  kind: 'numeric',
  text: (position) => String(position),
  parse: (text) => (/^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined),
};

// Scrambles the position so that neither the text nor its order gives it away; reversible for the emulator.
const MASK = 0x2f6b_1d3c_59a7_e4c1n;
const OPAQUE = /^g1:([0-9a-f]{16}):r$/;

export const OPAQUE_OFFSETS: OffsetFormat = {
  kind: 'opaque',
  text: (position) => (position < 0 ? '-1' : `g1:${(BigInt(position) ^ MASK).toString(16).padStart(16, '0')}:r`),
  parse: (text) => {
    const m = OPAQUE.exec(text);
    if (!m) return undefined;
    const position = Number(BigInt(`0x${m[1]}`) ^ MASK);
    return Number.isSafeInteger(position) && position >= 0 ? position : undefined;
  },
};
