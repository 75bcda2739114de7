/**
 * The streaming backend's one-pass message decoder against rhea's `message.decode`: for every encoding it
 * supports, the fields the backend reads (and the events built from them) are the same as rhea's; for
 * every encoding it does not, it declines and `decodeMessage` returns rhea's own result.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { message as rheaMessage, types } from 'rhea-promise';
import type { Message } from 'rhea-promise';
import { decodeMessage, tryDecodeFast } from '../../../../src/backends/streaming/message-decoder.ts';
import { lastEnqueuedFromMessage, messageToEvent } from '../../../../src/backends/streaming/message-to-event.ts';
import { toBodyBytes } from '../../../../src/backends/internal/body-bytes.ts';

const FIELDS = [
  'delivery_annotations',
  'message_annotations',
  'application_properties',
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

/** What the backend reads of a decoded message. */
function readable(m: Message): Record<string, unknown> {
  const fields = m as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of FIELDS) if (fields[f] !== undefined) out[f] = fields[f];
  out.body = toBodyBytes(m.body);
  return out;
}

function encode(m: Record<string, unknown>): Buffer {
  return rheaMessage.encode(m as unknown as Message) as Buffer;
}

/** Asserts the fast path decodes `bytes` and agrees with rhea on every field and on the events built. */
function assertSameAsRhea(bytes: Buffer): void {
  const fast = tryDecodeFast(bytes);
  assert.ok(fast, 'the fast path declined a supported message');
  const rhea = rheaMessage.decode(bytes) as unknown as Message;
  assert.deepEqual(readable(fast), readable(rhea));
  // Without annotations both events carry an Invalid Date (NaN never equals itself): compare the times.
  const event = (m: Message): unknown => {
    const e = messageToEvent(m);
    return { ...e, enqueuedTime: String(e.enqueuedTime.getTime()) };
  };
  assert.deepEqual(event(fast), event(rhea));
  assert.deepEqual(lastEnqueuedFromMessage(fast), lastEnqueuedFromMessage(rhea));
}

const EVENT_HUBS_DELIVERY = {
  header: { durable: true, delivery_count: 2 },
  delivery_annotations: {
    last_enqueued_sequence_number: types.wrap_long(123_456),
    last_enqueued_offset: '98765',
    last_enqueued_time_utc: types.wrap_timestamp(1_700_000_000_123),
    runtime_info_retrieval_time_utc: types.wrap_timestamp(1_700_000_000_456),
  },
  message_annotations: {
    'x-opt-sequence-number': types.wrap_long(42),
    'x-opt-offset': '4096',
    'x-opt-enqueued-time': types.wrap_timestamp(1_700_000_000_000),
    'x-opt-partition-key': 'device-7',
    'x-opt-custom': types.wrap_int(-5),
  },
  message_id: 'id-1',
  user_id: Buffer.from('user'),
  to: 'somewhere',
  subject: 'subj',
  reply_to: 'back',
  correlation_id: types.wrap_ulong(77),
  content_type: 'application/json',
  content_encoding: 'gzip',
  absolute_expiry_time: new Date(1_800_000_000_000),
  creation_time: new Date(1_700_000_000_000),
  group_id: 'g',
  group_sequence: 3,
  reply_to_group_id: 'rg',
  application_properties: { app: 'x', n: 7, ok: true, none: null },
  body: rheaMessage.data_section(Buffer.from('{"records":[]}')),
};

test('an Event Hubs delivery decodes as rhea decodes it', () => {
  assertSameAsRhea(encode(EVENT_HUBS_DELIVERY));
  const event = messageToEvent(decodeMessage(encode(EVENT_HUBS_DELIVERY)));
  assert.equal(event.sequenceNumber, 42);
  assert.equal(event.offset, '4096');
  assert.equal(event.partitionKey, 'device-7');
  assert.equal(Buffer.from(event.body).toString(), '{"records":[]}');
});

test('a message with only a data body, or with no sections at all, decodes as rhea decodes it', () => {
  assertSameAsRhea(encode({ body: rheaMessage.data_section(Buffer.alloc(0)) }));
  assertSameAsRhea(Buffer.alloc(0));
  assertSameAsRhea(
    encode({ message_annotations: { 'x-opt-offset': '1' }, body: rheaMessage.data_section(Buffer.from('b')) }),
  );
});

test('every scalar encoding in application properties and annotations decodes as rhea decodes it', () => {
  const long = (n: number): unknown => types.wrap_long(n);
  const scalars: Record<string, unknown> = {
    null: null,
    t: true,
    f: false,
    ubyte: types.wrap_ubyte(200),
    ushort: types.wrap_ushort(60_000),
    uint0: types.wrap_uint(0),
    smalluint: types.wrap_uint(9),
    uint: types.wrap_uint(4_000_000_000),
    ulong0: types.wrap_ulong(0),
    smallulong: types.wrap_ulong(200),
    ulong: types.wrap_ulong(2 ** 52),
    byte: types.wrap_byte(-100),
    short: types.wrap_short(-30_000),
    smallint: types.wrap_int(-7),
    int: types.wrap_int(-2_000_000_000),
    smalllong: long(-3),
    longNeg: long(-(2 ** 50)),
    longPos: long(2 ** 53 - 1),
    longMid: long(1_700_000_000_000),
    float: types.wrap_float(1.5),
    double: types.wrap_double(Math.PI),
    timestamp: types.wrap_timestamp(-86_400_000),
    date: new Date(1_234_567_890_123),
    bin8: Buffer.from([1, 2, 3]),
    bin32: Buffer.alloc(300, 7),
    str8: 'héllo ✓',
    str32: 'y'.repeat(300),
    empty: '',
    sym8: types.wrap_symbol('sym'),
    sym32: types.wrap_symbol('s'.repeat(260)),
  };
  assertSameAsRhea(encode({ application_properties: scalars, body: rheaMessage.data_section(Buffer.from('b')) }));
  assertSameAsRhea(encode({ message_annotations: scalars, body: rheaMessage.data_section(Buffer.from('b')) }));
  // A map over 255 bytes (map32) and a properties list with a trailing null.
  const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`key-${i}`, `value-${i}`]));
  const body = rheaMessage.data_section(Buffer.alloc(70_000, 1)); // vbin32
  assertSameAsRhea(encode({ application_properties: many, message_id: types.wrap_ulong(5), group_id: 'x', body }));
});

test('encodings outside the fast subset are declined and decoded by rhea', () => {
  const body = rheaMessage.data_section(Buffer.from('b'));
  const unsupported: Record<string, Buffer> = {
    'uuid value': encode({ application_properties: { u: types.wrap_uuid(Buffer.alloc(16, 1)) }, body }),
    'list value': encode({ application_properties: { l: types.wrap_list([1, 'a']) }, body }),
    'map value': encode({ message_annotations: { m: types.wrap_map({ a: 1 }) }, body }),
    'array value': encode({ application_properties: { a: types.wrap_array([1, 2], 0x71, undefined) }, body }),
    'described value': encode({ application_properties: { d: types.wrap_described('v', 0x77) }, body }),
    'char value': encode({ application_properties: { c: types.wrap_char('z') }, body }),
    'boolean byte': Buffer.from([0x00, 0x53, 0x74, 0xc1, 0x05, 0x02, 0xa1, 0x01, 0x62, 0x56, 0x01]),
    'long beyond a safe number': encode({
      application_properties: { big: types.wrap_long(Buffer.from([0x7f, 0, 0, 0, 0, 0, 0, 1])) },
      body,
    }),
    'ulong beyond a safe number': encode({
      application_properties: { big: types.wrap_ulong(Buffer.from([0xff, 0, 0, 0, 0, 0, 0, 1])) },
      body,
    }),
    'numeric map key': Buffer.from([0x00, 0x53, 0x74, 0xc1, 0x05, 0x02, 0x54, 0x01, 0xa1, 0x01, 0x62]),
    'two data sections': encode({ body: rheaMessage.data_sections([Buffer.from('a'), Buffer.from('b')]) }),
    'amqp-value body': encode({ body: 'text' }),
    'amqp-sequence body': encode({ body: rheaMessage.sequence_section([1, 2]) }),
    footer: encode({ body, footer: { f: 1 } }),
    'truncated message': encode(EVENT_HUBS_DELIVERY).subarray(0, 40),
  };
  for (const [name, bytes] of Object.entries(unsupported)) {
    assert.equal(tryDecodeFast(bytes), undefined, name);
    let rhea: unknown;
    try {
      rhea = rheaMessage.decode(bytes);
    } catch (error) {
      assert.throws(
        () => decodeMessage(bytes),
        (e) => e instanceof Error && e.message === (error as Error).message,
        name,
      );
      continue;
    }
    assert.deepEqual(decodeMessage(bytes), rhea, name);
  }
});
