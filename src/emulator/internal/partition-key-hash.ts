/**
 * Partition key → partition index, the way the Event Hubs service maps keys: Bob Jenkins' lookup3
 * `hashlittle2` over the key's UTF-8 bytes with both seeds 0, the two 32-bit results folded into a signed
 * 16-bit value `int16(c ^ b)`, and the index `|h % partitionCount|`. The algorithm is public domain
 * (burtleburtle.net/bob/c/lookup3.c); the fold and the test vectors are in docs EVENT-HUBS-PROTOCOL.md.
 */

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** lookup3 `hashlittle2` with both initial values 0; returns the primary (c) and secondary (b) hashes. */
function hashLittle2(bytes: Uint8Array): { c: number; b: number } {
  let length = bytes.length;
  let a = (0xdeadbeef + length) | 0;
  let b = a;
  let c = a;
  let i = 0;
  const word = (at: number): number =>
    bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
  while (length > 12) {
    a = (a + word(i)) | 0;
    b = (b + word(i + 4)) | 0;
    c = (c + word(i + 8)) | 0;
    // mix(a, b, c)
    a = (a - c) | 0;
    a ^= rotl(c, 4);
    c = (c + b) | 0;
    b = (b - a) | 0;
    b ^= rotl(a, 6);
    a = (a + c) | 0;
    c = (c - b) | 0;
    c ^= rotl(b, 8);
    b = (b + a) | 0;
    a = (a - c) | 0;
    a ^= rotl(c, 16);
    c = (c + b) | 0;
    b = (b - a) | 0;
    b ^= rotl(a, 19);
    a = (a + c) | 0;
    c = (c - b) | 0;
    c ^= rotl(b, 4);
    b = (b + a) | 0;
    length -= 12;
    i += 12;
  }
  if (length === 0) return { c: c >>> 0, b: b >>> 0 };
  // The tail: up to 12 remaining bytes added little-endian into a, b, c (lookup3's switch on length).
  const lanes = [a, b, c];
  for (let j = 0; j < length; j++) {
    const lane = j >> 2;
    lanes[lane] = (lanes[lane]! + (bytes[i + j]! << ((j & 3) * 8))) | 0;
  }
  [a, b, c] = lanes as [number, number, number];
  // final(a, b, c)
  c ^= b;
  c = (c - rotl(b, 14)) | 0;
  a ^= c;
  a = (a - rotl(c, 11)) | 0;
  b ^= a;
  b = (b - rotl(a, 25)) | 0;
  c ^= b;
  c = (c - rotl(b, 16)) | 0;
  a ^= c;
  a = (a - rotl(c, 4)) | 0;
  b ^= a;
  b = (b - rotl(a, 14)) | 0;
  c ^= b;
  c = (c - rotl(b, 24)) | 0;
  return { c: c >>> 0, b: b >>> 0 };
}

/** The partition index (0-based) the service assigns to events sent with this partition key. */
export function partitionIndexForKey(partitionKey: string, partitionCount: number): number {
  const { c, b } = hashLittle2(Buffer.from(partitionKey, 'utf8'));
  const h = ((c ^ b) << 16) >> 16; // int16 cast
  return Math.abs(h % partitionCount);
}
