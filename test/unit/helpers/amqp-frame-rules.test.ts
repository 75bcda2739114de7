import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AmqpFrame, AmqpValue } from '../../helpers/amqp-frame-decoder.ts';
import { checkFrameFields, summarize, type Finding } from '../../helpers/amqp-frame-rules.ts';
import { checkSentOrder } from '../../helpers/amqp-link-order.ts';
import { checkServerAgainstClient } from '../../helpers/amqp-peer-rules.ts';
import type { RecordedUnit } from '../../helpers/recording-proxy.ts';

// Decoded values built directly: the rules read decoded frames, the decoder has its own tests.
const NULL: AmqpValue = { type: 'null', code: 0x40, value: null };
const uint = (value: number): AmqpValue => ({ type: 'uint', code: 0x70, value });
const ushort = (value: number): AmqpValue => ({ type: 'ushort', code: 0x60, value });
const ulong = (value: bigint): AmqpValue => ({ type: 'ulong', code: 0x80, value });
const ubyte = (value: number): AmqpValue => ({ type: 'ubyte', code: 0x50, value });
const bool = (value: boolean): AmqpValue => ({ type: 'boolean', code: value ? 0x41 : 0x42, value });
const str = (value: string): AmqpValue => ({ type: 'string', code: 0xa1, value });
const sym = (value: string): AmqpValue => ({ type: 'symbol', code: 0xa3, value });
const bin = (value: string): AmqpValue => ({ type: 'binary', code: 0xa0, value: Buffer.from(value) });
const map: AmqpValue = { type: 'map', code: 0xc1, value: [] };
const described = (code: number, fields: AmqpValue[]): AmqpValue => ({
  type: 'described',
  code: 0,
  descriptor: ulong(BigInt(code)),
  value: { type: 'list', code: 0xc0, value: fields },
});
const nulls = (n: number): AmqpValue[] => Array.from({ length: n }, () => NULL);
const source = (address: string) =>
  described(0x28, [str(address), uint(0), sym('session-end'), uint(0), bool(false), ...nulls(6)]);
const target = (address: string) =>
  described(0x29, [str(address), uint(0), sym('session-end'), uint(0), bool(false), NULL, NULL]);
const frame = (performative: string, fields: AmqpValue[], channel = 0, size = 64): AmqpFrame => ({
  kind: 'frame',
  type: 0,
  channel,
  performative,
  body: undefined,
  fields,
  payload: Buffer.alloc(0),
  size,
});

const begin = (remote: number | null, channel = 0) =>
  frame(
    'begin',
    [remote === null ? NULL : ushort(remote), uint(0), uint(2048), uint(2048), uint(4294967295), NULL, NULL, NULL],
    channel,
  );
/** A complete attach; role false = sender. */
const attach = (name: string, handle: number, sender: boolean, initial: AmqpValue = uint(0), channel = 0) =>
  frame(
    'attach',
    [
      str(name),
      uint(handle),
      bool(!sender),
      ubyte(2),
      ubyte(0),
      source('s'),
      target('t'),
      NULL,
      bool(false),
      sender ? initial : NULL,
      ulong(1048576n),
      NULL,
      NULL,
      map,
    ],
    channel,
  );
const flow = (handle: number, deliveryCount: number | null, credit: number, channel = 0) =>
  frame(
    'flow',
    [
      uint(0),
      uint(2048),
      uint(0),
      uint(2048),
      uint(handle),
      deliveryCount === null ? NULL : uint(deliveryCount),
      uint(credit),
      NULL,
      bool(false),
      bool(false),
      NULL,
    ],
    channel,
  );
const transfer = (handle: number, id: number | null, more = false, channel = 0) =>
  frame(
    'transfer',
    [
      uint(handle),
      id === null ? NULL : uint(id),
      id === null ? NULL : bin(`t${id}`),
      uint(0),
      bool(true),
      bool(more),
      NULL,
      NULL,
      bool(false),
      bool(false),
      bool(false),
    ],
    channel,
  );
const detach = (handle: number, closed: boolean, channel = 0) =>
  frame('detach', [uint(handle), bool(closed), NULL], channel);
const messages = (findings: Finding[]) =>
  findings.map((f) => `${f.kind}: ${f.message}${f.where ? ` @ ${f.where}` : ''}`);

test('a complete performative has no findings; a short one lists its missing fields and unwritten defaults', () => {
  assert.deepEqual(checkFrameFields(begin(0)), []);
  assert.deepEqual(checkFrameFields(attach('a', 0, true)), []);
  assert.deepEqual(messages(checkFrameFields(frame('begin', [ushort(0), uint(0), uint(2048), uint(2048)]))), [
    'complete: begin has 4 fields, not 8 (missing handle-max, offered-capabilities, desired-capabilities, properties)',
    'complete: begin.handle-max is omitted, not its default 4294967295',
  ]);
  assert.deepEqual(messages(checkFrameFields(frame('detach', [uint(0), NULL]))), [
    'complete: detach has 2 fields, not 3 (missing error)',
    'complete: detach.closed is null, not its default false',
  ]);
});

test('wrong types, missing mandatory fields and oversized composites are spec findings, nested ones too', () => {
  const wrongType = begin(0);
  wrongType.fields[4] = ulong(4294967295n);
  assert.deepEqual(messages(checkFrameFields(wrongType)), ['spec: begin.handle-max is a ulong, the spec says uint']);
  const eleven = attach('a', 0, true);
  eleven.fields[6] = described(0x29, [NULL, uint(0), sym('session-end'), uint(0), bool(false), ...nulls(6)]);
  assert.deepEqual(messages(checkFrameFields(eleven)), ['spec: attach.target has 11 fields, not 7']);
  const error = frame('detach', [uint(0), bool(true), described(0x1d, [NULL, str('why'), NULL])]);
  assert.deepEqual(messages(checkFrameFields(error)), ['spec: detach.error.condition is mandatory but null']);
  const shortError = frame('close', [described(0x1d, [sym('amqp:internal-error'), str('why')])]);
  assert.deepEqual(messages(checkFrameFields(shortError)), [
    'complete: close.error has 2 fields, not 3 (missing info)',
  ]);
  const rejected = frame('disposition', [
    bool(true),
    uint(0),
    uint(0),
    bool(true),
    described(0x25, [described(0x1d, [sym('x')])]),
    bool(false),
  ]);
  assert.deepEqual(messages(checkFrameFields(rejected)), [
    'complete: disposition.state.error has 1 fields, not 3 (missing description, info)',
  ]);
});

test('link order: frames of a handle only between its attach and its detach, sessions between begin and end', () => {
  const good = [
    begin(0),
    attach('a', 0, true),
    flow(0, 0, 10),
    transfer(0, 0),
    detach(0, true),
    attach('b', 0, true),
    detach(0, true),
    frame('end', [NULL]),
  ];
  assert.deepEqual(checkSentOrder(good), []);
  assert.deepEqual(
    messages(
      checkSentOrder([begin(0), transfer(1, 0), attach('a', 1, true), detach(1, true), flow(1, 0, 1), detach(1, true)]),
    ),
    [
      'order: transfer with handle 1 before its attach (or after its detach) @ frame 1 (transfer, channel 0)',
      'order: flow with handle 1 before its attach (or after its detach) @ frame 4 (flow, channel 0)',
      'order: detach with handle 1 before its attach (or after its detach) @ frame 5 (detach, channel 0)',
    ],
  );
  assert.deepEqual(messages(checkSentOrder([attach('a', 0, true, uint(0), 3)])), [
    'order: attach on a channel with no session begun @ frame 0 (attach, channel 3)',
  ]);
  // A continuation may leave delivery-id and tag out; a first transfer may not.
  assert.deepEqual(checkSentOrder([begin(0), attach('a', 0, false), transfer(0, 0, true), transfer(0, null)]), []);
  assert.deepEqual(messages(checkSentOrder([begin(0), attach('a', 0, false), transfer(0, null)])), [
    'spec: the first transfer of a delivery has no delivery-id or delivery-tag @ frame 2 (transfer, channel 0)',
  ]);
});

const unit = (from: 'client' | 'server', f: AmqpFrame): RecordedUnit => ({ from, connection: 0, chunk: 0, unit: f });
const client = (f: AmqpFrame) => unit('client', f);
const server = (f: AmqpFrame) => unit('server', f);
const open = (maxFrame: number | null, channelMax: number | null) =>
  frame('open', [
    str('c'),
    NULL,
    maxFrame === null ? NULL : uint(maxFrame),
    channelMax === null ? NULL : ushort(channelMax),
    uint(60000),
    ...nulls(5),
  ]);

test('peer rules: a session the server answers, links it answers, credit the client granted', () => {
  const clientReceiver = attach('r', 5, false, NULL, 0);
  const good = [
    client(open(null, null)),
    server(open(65536, 4999)),
    client(begin(null, 0)),
    server(begin(0, 1)),
    client(clientReceiver),
    client(flow(5, null, 2)),
    server(attach('r', 0, true, uint(0), 1)),
    server(transfer(0, 0, false, 1)),
    server(transfer(0, 1, true, 1)),
    server(transfer(0, null, false, 1)),
    client(detach(5, true)),
    server(detach(0, true, 1)),
    client(frame('close', [NULL])),
    server(frame('close', [NULL])),
  ];
  assert.deepEqual(
    checkServerAgainstClient(good),
    [],
    'a flow sent before the server attach counts, a continuation uses no credit',
  );
  const bad = [
    client(open(1000, 10)),
    server(open(65536, 4999)),
    client(begin(null, 0)),
    server(begin(null, 1)),
    server(begin(0, 11)),
    client(clientReceiver),
    server(attach('r', 0, true, NULL, 11)),
    server(attach('nobody', 1, true, uint(0), 11)),
    client(flow(5, 0, 1)),
    server(transfer(0, 0, false, 11)),
    server(transfer(0, 1, false, 11)),
    server({ ...transfer(0, 2, false, 11), size: 2000 }),
    client(detach(5, true)),
    server(detach(0, false, 11)),
    server(frame('close', [NULL])),
    server(frame('end', [NULL])),
  ];
  assert.deepEqual(messages(checkServerAgainstClient(bad)), [
    'spec: a begin that answers no client begin @ server frame 1 (begin, channel 1): remote-channel null',
    'spec: a channel above the negotiated channel-max @ server frame 2 (begin, channel 11): 11 > 10',
    'spec: a channel above the negotiated channel-max @ server frame 3 (attach, channel 11): 11 > 10',
    "spec: a sender's attach without initial-delivery-count @ server frame 3 (attach, channel 11)",
    'spec: a channel above the negotiated channel-max @ server frame 4 (attach, channel 11): 11 > 10',
    "spec: an attach that answers no client attach on its session @ server frame 4 (attach, channel 11): 'nobody'",
    'spec: a channel above the negotiated channel-max @ server frame 5 (transfer, channel 11): 11 > 10',
    'spec: a channel above the negotiated channel-max @ server frame 6 (transfer, channel 11): 11 > 10',
    "spec: a delivery beyond the client's link credit @ server frame 6 (transfer, channel 11): 'r', delivery-count 1," +
      ' limit 1',
    "spec: a frame above the client's max-frame-size @ server frame 7 (transfer, channel 11): 2000 > 1000 bytes",
    'spec: a channel above the negotiated channel-max @ server frame 7 (transfer, channel 11): 11 > 10',
    "spec: a delivery beyond the client's link credit @ server frame 7 (transfer, channel 11): 'r', delivery-count 2," +
      ' limit 1',
    'spec: a channel above the negotiated channel-max @ server frame 8 (detach, channel 11): 11 > 10',
    "spec: a detach answering the client's closing detach without closed=true @ server frame 8 (detach, channel 11): " +
      "'r'",
    "spec: sent after the server's close @ server frame 10 (end, channel 0)",
  ]);
});

test("peer rules: transfers stay within the client's session incoming window", () => {
  const narrowBegin = frame('begin', [NULL, uint(0), uint(2), uint(2048), uint(4294967295), NULL, NULL, NULL]);
  /** A client flow with its session part: next-incoming-id (null before any transfer) and an incoming window of 2. */
  const windowFlow = (nextIncoming: number | null, credit: number) =>
    frame('flow', [
      nextIncoming === null ? NULL : uint(nextIncoming),
      uint(2),
      uint(0),
      uint(2048),
      uint(0),
      NULL,
      uint(credit),
      NULL,
      bool(false),
      bool(false),
      NULL,
    ]);
  const session = [
    client(open(null, null)),
    server(open(65536, 4999)),
    client(narrowBegin),
    server(begin(0, 0)),
    client(attach('r', 0, false, NULL)),
    client(windowFlow(null, 100)),
    server(attach('r', 0, true)),
  ];
  const within = [
    ...session,
    server(transfer(0, 0)),
    server(transfer(0, 1)),
    client(windowFlow(2, 98)),
    server(transfer(0, 2)),
  ];
  assert.deepEqual(checkServerAgainstClient(within), [], 'a client flow moves the window on');
  const beyond = [...session, server(transfer(0, 0)), server(transfer(0, 1)), server(transfer(0, 2))];
  assert.deepEqual(messages(checkServerAgainstClient(beyond)), [
    "spec: a transfer beyond the client's session incoming window @ server frame 5 (transfer, channel 0): " +
      'transfer-id 2, next-incoming-id 0, window 2',
  ]);
});

test('summarize counts findings by message, names the first place, and stays short', () => {
  const many = Array.from(
    { length: 3 },
    (_, i): Finding => ({ kind: 'order', path: 'transfer', message: 'late', where: `frame ${i}` }),
  );
  assert.equal(
    summarize([...many, { kind: 'spec', path: 'x', message: 'other' }]),
    '3× late (first: frame 0)\n1× other',
  );
  const distinct = Array.from({ length: 50 }, (_, i): Finding => ({ kind: 'spec', path: 'x', message: `m${i}` }));
  assert.match(summarize(distinct), /\n… and 10 more$/);
});
