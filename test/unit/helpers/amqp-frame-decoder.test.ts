import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AmqpDecodeError,
  AmqpFrameReader,
  decodeAll,
  decodeFrame,
  decodeValue,
  plain,
  type AmqpFrame,
} from '../../helpers/amqp-frame-decoder.ts';

// Every byte string below is written by hand from the AMQP 1.0 spec's encoding tables (part 1, 1.6).
const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const one = (s: string) => {
  const bytes = hex(s);
  const [value, end] = decodeValue(bytes);
  assert.equal(end, bytes.length, `decoding ${s} used ${end} of ${bytes.length} bytes`);
  return value;
};
/** A frame around a body: size, doff 2, type, channel. */
const frameBytes = (type: number, channel: number, body: string): Buffer => {
  const b = hex(body);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + b.length, 0);
  header.writeUInt8(2, 4);
  header.writeUInt8(type, 5);
  header.writeUInt16BE(channel, 6);
  return Buffer.concat([header, b]);
};

test('fixed-width primitives keep their wire type and value', () => {
  const cases: Array<[string, string, unknown]> = [
    ['40', 'null', null],
    ['41', 'boolean', true],
    ['42', 'boolean', false],
    ['5601', 'boolean', true],
    ['5600', 'boolean', false],
    ['50ff', 'ubyte', 255],
    ['601387', 'ushort', 4999],
    ['7000010000', 'uint', 65536],
    ['52ff', 'uint', 255],
    ['43', 'uint', 0],
    ['80ffffffffffffffff', 'ulong', 18446744073709551615n],
    ['5312', 'ulong', 18n],
    ['44', 'ulong', 0n],
    ['51fe', 'byte', -2],
    ['61fffe', 'short', -2],
    ['71fffffffe', 'int', -2],
    ['54fe', 'int', -2],
    ['81fffffffffffffffe', 'long', -2n],
    ['55fe', 'long', -2n],
    ['723fc00000', 'float', 1.5],
    ['823ff8000000000000', 'double', 1.5],
    ['7300000041', 'char', 0x41],
    ['830000018bcfe56800', 'timestamp', 1700000000000n],
    ['98 00112233445566778899aabbccddeeff', 'uuid', '00112233-4455-6677-8899-aabbccddeeff'],
  ];
  for (const [bytes, type, value] of cases) {
    const v = one(bytes);
    assert.equal(v.type, type, bytes);
    assert.deepEqual(v.value, value, bytes);
    assert.equal(v.code, hex(bytes)[0]);
  }
  assert.deepEqual(one('74 01020304').value, hex('01020304'), 'decimal32 is kept as bytes');
  assert.equal(one('84 0102030405060708').type, 'decimal64');
  assert.equal(one('94 00112233445566778899aabbccddeeff').type, 'decimal128');
});

test('variable-width strings, symbols and binaries, short and long forms', () => {
  assert.deepEqual(one('a1 03 616263'), { type: 'string', code: 0xa1, value: 'abc' });
  assert.deepEqual(one('b1 00000003 616263'), { type: 'string', code: 0xb1, value: 'abc' });
  assert.deepEqual(one('a1 02 c3a9'), { type: 'string', code: 0xa1, value: 'é' });
  assert.deepEqual(one('a3 04 24636273'), { type: 'symbol', code: 0xa3, value: '$cbs' });
  assert.deepEqual(one('b3 00000004 24636273'), { type: 'symbol', code: 0xb3, value: '$cbs' });
  assert.deepEqual(one('a0 02 0102'), { type: 'binary', code: 0xa0, value: hex('0102') });
  assert.deepEqual(one('b0 00000002 0102'), { type: 'binary', code: 0xb0, value: hex('0102') });
  assert.deepEqual(one('a1 00'), { type: 'string', code: 0xa1, value: '' });
});

test('lists: list0, list8 and list32 keep the number of elements actually written', () => {
  assert.deepEqual(one('45'), { type: 'list', code: 0x45, value: [] });
  // list8: size 5 (count byte + 4 bytes of elements), 3 elements: null, true, smalluint 7.
  const l8 = one('c0 05 03 40 41 5207');
  assert.equal(l8.type, 'list');
  assert.deepEqual(plain(l8), [null, true, 7]);
  // list32: size 13 (4 count bytes + 9), 2 elements: uint 1, str8 "ab".
  const l32 = one('d0 0000000d 00000002 7000000001 a1026162');
  assert.deepEqual(plain(l32), [1, 'ab']);
  assert.equal(l32.code, 0xd0);
  // Nested: a list holding list0 and a list8 of one null.
  assert.deepEqual(plain(one('c0 06 02 45 c0 02 01 40')), [[], [null]]);
});

test('maps: map8 and map32 as ordered key/value pairs', () => {
  const m8 = one('c1 0c 02 a3 04 6e616d65 a1 03 687562');
  assert.equal(m8.type, 'map');
  assert.deepEqual(plain(m8), new Map([['name', 'hub']]));
  const m32 = one('d1 00000011 00000002 a3 01 78 d0 00000005 00000001 40');
  assert.deepEqual(plain(m32), new Map([['x', [null]]]));
  assert.deepEqual(plain(one('c1 01 00')), new Map());
});

test('arrays: one constructor for all elements, including symbols and described elements', () => {
  // array8 of 2 sym8: size 1 count + 1 ctor + (1+4)+(1+5) = 13.
  const syms = one('e0 11 02 a3 05 504c41494e 08 45585445524e414c');
  assert.equal(syms.type, 'array');
  assert.deepEqual(plain(syms), ['PLAIN', 'EXTERNAL']);
  // array32 of 3 uint.
  assert.deepEqual(plain(one('f0 00000011 00000003 70 00000001 00000002 00000003')), [1, 2, 3]);
  // array8 of 2 described smalluint values (descriptor smallulong 0x99).
  const described = one('e0 07 02 00 53 99 52 0a 0b');
  assert.deepEqual(plain(described), [
    { descriptor: 153n, value: 10 },
    { descriptor: 153n, value: 11 },
  ]);
  // An empty array still has its constructor.
  assert.deepEqual(plain(one('e0 02 00 a3')), []);
});

test('described values: numeric and symbolic descriptors, nested', () => {
  const error = one('00 53 1d c0 16 03 a3 0e 616d71703a6e6f742d666f756e64 a1 02 6e6f 40');
  assert.equal(error.type, 'described');
  assert.deepEqual(plain(error), { descriptor: 0x1dn, value: ['amqp:not-found', 'no', null] });
  const symbolic = one('00 a3 0f 616d71703a636c6f73653a6c697374 45');
  assert.deepEqual(plain(symbolic), { descriptor: 'amqp:close:list', value: [] });
  const nested = one('00 5301 00 5302 43');
  assert.deepEqual(plain(nested), { descriptor: 1n, value: { descriptor: 2n, value: 0 } });
});

test('malformed input is an AmqpDecodeError naming the problem', () => {
  assert.throws(
    () => decodeValue(hex('ff')),
    (e: unknown) => e instanceof AmqpDecodeError && /unknown format code 0xff/.test(e.message),
  );
  assert.throws(() => decodeValue(hex('70 0001')), /truncated uint/);
  assert.throws(() => decodeValue(hex('a1 05 6162')), /truncated string/);
  assert.throws(() => decodeValue(hex('c0 03 03 40 40')), /declares 3 elements/);
  assert.throws(() => decodeValue(hex('c0 04 01 40 40 40')), /size says 4 bytes/);
  assert.throws(() => decodeValue(hex('c1 02 01 40')), /odd element count/);
});

test('decodeAll reads consecutive values (message sections)', () => {
  // application-properties {status-code: 202} then an amqp-value string.
  const sections = decodeAll(hex('00 53 74 c1 13 02 a1 0b 7374617475732d636f6465 71 000000ca 00 53 77 a1 02 6f6b'));
  assert.deepEqual(sections.map(plain), [
    { descriptor: 0x74n, value: new Map([['status-code', 202]]) },
    { descriptor: 0x77n, value: 'ok' },
  ]);
});

// An open frame written fully by hand: size 29, doff 2, type 0, channel 0; open(container-id "test",
// hostname null, max-frame-size 65536, channel-max 4999): four fields written, six left out.
const OPEN = '0000001d 02 00 0000  00 53 10  c0 10 04  a1 04 74657374  40  70 00010000  60 1387';

test('decodeFrame gives the performative, its fields as written and the payload', () => {
  const frame = decodeFrame(hex(OPEN));
  assert.equal(frame.performative, 'open');
  assert.equal(frame.type, 0);
  assert.equal(frame.channel, 0);
  assert.equal(frame.size, 29);
  assert.equal(frame.fields.length, 4, 'the fields actually on the wire, not the ten the spec defines');
  assert.deepEqual(frame.fields.map(plain), ['test', null, 65536, 4999]);
  assert.equal(frame.fields[3]!.type, 'ushort');
  assert.equal(frame.payload.length, 0);

  // transfer(handle 1, delivery-id 0) on channel 3, with 3 payload bytes after the performative.
  const transfer = decodeFrame(frameBytes(0, 3, '00 53 14 c0 04 02 52 01 43  aabbcc'));
  assert.equal(transfer.performative, 'transfer');
  assert.equal(transfer.channel, 3);
  assert.deepEqual(transfer.fields.map(plain), [1, 0]);
  assert.deepEqual(transfer.payload, hex('aabbcc'));

  // A SASL frame (type 1) with a symbolic descriptor: sasl-mechanisms([ANONYMOUS]).
  const sasl = decodeFrame(frameBytes(1, 0, '00 53 40 c0 0f 01 e0 0c 01 a3 09 414e4f4e594d4f5553'));
  assert.equal(sasl.type, 1);
  assert.equal(sasl.performative, 'sasl-mechanisms');
  assert.deepEqual(plain(sasl.fields[0]!), ['ANONYMOUS']);

  // An extended header (doff 3: 4 bytes skipped) and an empty frame (a heartbeat).
  const extended = hex('00000010 03 00 0005 deadbeef 00 53 17 45');
  assert.equal(decodeFrame(extended).performative, 'end');
  assert.equal(decodeFrame(extended).channel, 5);
  const heartbeat = decodeFrame(hex('00000008 02 00 0000'));
  assert.equal(heartbeat.performative, undefined);
  assert.deepEqual(heartbeat.fields, []);
});

test('decodeFrame refuses bad framing', () => {
  assert.throws(() => decodeFrame(hex('00000009 01 00 0000 40')), /data offset 1/);
  assert.throws(() => decodeFrame(hex('00000009 02 07 0000 40')), /unknown frame type 7/);
  assert.throws(() => decodeFrame(frameBytes(0, 0, '00 53 77 45')), /unknown performative descriptor/);
  assert.throws(() => decodeFrame(frameBytes(0, 0, '00 53 10 40')), /open is a described null/);
  assert.throws(() => decodeFrame(frameBytes(0, 0, '70 00000001')), /not a described performative/);
});

test('the reader splits headers and frames out of a stream, whatever the chunking', () => {
  const stream = Buffer.concat([
    hex('414d5150 03 010000'),
    frameBytes(1, 0, '00 53 44 c0 04 02 50 00 40'),
    hex('414d5150 00 010000'),
    hex(OPEN),
    hex('00000008 02 00 0000'),
  ]);
  const summary = (units: ReturnType<AmqpFrameReader['push']>) =>
    units.map((u) =>
      u.kind === 'header'
        ? `header ${u.protocolId} ${u.version}`
        : `${(u as AmqpFrame).performative ?? 'empty'} ${u.fields.length}`,
    );
  const whole = new AmqpFrameReader();
  const expected = ['header 3 1.0.0', 'sasl-outcome 2', 'header 0 1.0.0', 'open 4', 'empty 0'];
  assert.deepEqual(summary(whole.push(stream)), expected);
  assert.equal(whole.buffered, 0);
  for (const step of [1, 3, 7]) {
    const reader = new AmqpFrameReader();
    const units = [];
    for (let at = 0; at < stream.length; at += step) units.push(...reader.push(stream.subarray(at, at + step)));
    assert.deepEqual(summary(units), expected, `chunks of ${step} bytes`);
  }
  const partial = new AmqpFrameReader();
  assert.deepEqual(partial.push(hex(OPEN).subarray(0, 20)), []);
  assert.equal(partial.buffered, 20);
  assert.throws(() => new AmqpFrameReader().push(hex('00000004 02 00 0000')), /below the 8-byte frame header/);
  assert.throws(
    () => new AmqpFrameReader().push(Buffer.concat([hex('414d5150 00 010000'), hex('00000004 02 00 0000')])),
    (e: unknown) => e instanceof AmqpDecodeError && e.units.length === 1 && e.units[0]!.kind === 'header',
    'the error carries the units decoded before it',
  );
});
