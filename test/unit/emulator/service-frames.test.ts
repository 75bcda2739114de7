import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { completePerformative, serveLikeTheService } from '../../../src/emulator/internal/service-frames.ts';

const require = createRequire(import.meta.url);
const frames = require('rhea/lib/frames.js');
const types = require('rhea/lib/types.js');
const terminus = require('rhea/lib/terminus.js');

const OPTIONS = { maxMessageSizeBytes: 1_048_576 };

/** Encodes a performative as rhea would send it and decodes the described list back: the fields on the wire. */
function wireFields(performative: any): any[] {
  const buffer: Buffer = frames.write_frame(frames.amqp_frame(0, performative));
  const described = new types.Reader(buffer.subarray(8)).read();
  return described.value as any[];
}

function values(fields: any[]): unknown[] {
  return fields.map((f) => (f?.type?.name === 'Null' ? null : f?.value));
}

test('every performative is written with all its fields, defaults written out', () => {
  const begin = frames.begin({
    remote_channel: 1,
    next_outgoing_id: 0,
    incoming_window: 2048,
    outgoing_window: 4294967295,
  });
  assert.equal(wireFields(begin).length, 4, 'rhea alone leaves the trailing fields out');
  completePerformative(begin, OPTIONS);
  const beginFields = wireFields(begin);
  assert.equal(beginFields.length, 8);
  assert.equal(values(beginFields)[4], 4294967295, 'handle-max written as its default');

  const flow = frames.flow({
    incoming_window: 10,
    next_outgoing_id: 0,
    outgoing_window: 10,
    handle: 0,
    delivery_count: 0,
    link_credit: 5,
  });
  completePerformative(flow, OPTIONS);
  assert.deepEqual(values(wireFields(flow)).slice(8), [false, false, null]);

  const transfer = frames.transfer({
    handle: 0,
    delivery_id: 3,
    delivery_tag: Buffer.from('0'),
    message_format: 0,
    settled: true,
  });
  completePerformative(transfer, OPTIONS);
  assert.deepEqual(values(wireFields(transfer)).slice(5), [false, null, null, false, false, false]);
  assert.equal(wireFields(transfer).length, 11);

  const close = frames.close({});
  completePerformative(close, OPTIONS);
  assert.equal(wireFields(close).length, 1);
});

test('an Attach carries properties, max-message-size and complete source and target', () => {
  const attach = frames.attach({ name: 'link', handle: 0, role: false });
  attach.source = terminus.source({ address: '$cbs' }).described();
  attach.target = terminus.target({ address: 'client-reply' }).described();
  completePerformative(attach, OPTIONS);
  const fields = wireFields(attach);
  assert.equal(fields.length, 14);
  const v = values(fields);
  assert.equal(v[3], 2, 'snd-settle-mode mixed');
  assert.equal(v[4], 0, 'rcv-settle-mode first');
  assert.equal(v[8], false, 'incomplete-unsettled');
  assert.equal(Number(v[10]), 1_048_576, 'max-message-size');
  assert.equal(fields[13].type.name.startsWith('Map'), true, 'properties is a map');
  const source = fields[5].value as any[];
  const target = fields[6].value as any[];
  assert.equal(source.length, 11);
  assert.equal(target.length, 7);
  assert.deepEqual(values(source).slice(0, 5), ['$cbs', 0, 'session-end', 0, false]);
  // Properties a link set itself stay as they are.
  const own = frames.attach({
    name: 'p',
    handle: 1,
    role: true,
    properties: { 'com.microsoft:producer-id': 7 },
    max_message_size: 99,
  });
  completePerformative(own, OPTIONS);
  const ownValues = values(wireFields(own));
  assert.equal(Number(ownValues[10]), 99);
});

test('errors always have condition, description and info, nested in Detach, End, Close and rejected outcomes', () => {
  const detach = frames.detach({
    handle: 0,
    closed: true,
    error: { condition: 'amqp:not-found', description: 'gone' },
  });
  completePerformative(detach, OPTIONS);
  const error = wireFields(detach)[2];
  assert.equal(error.value.length, 3);
  assert.deepEqual(values(error.value), ['amqp:not-found', 'gone', null]);

  const rejected = types.described(
    types.wrap_ulong(0x25),
    types.wrap_list([types.wrap_error({ condition: 'amqp:link:message-size-exceeded' })]),
  );
  const disposition = frames.disposition({ role: true, first: 4, last: 4, settled: true, state: rejected });
  completePerformative(disposition, OPTIONS);
  const dispositionFields = wireFields(disposition);
  assert.equal(dispositionFields.length, 6);
  assert.equal(dispositionFields[4].value[0].value.length, 3, 'the rejected outcome error is complete');
});

/** A stand-in for a rhea connection: its AMQP transport queues frames in `pending` through `encode`. */
function fakeConnection() {
  const amqp_transport = {
    pending: [] as any[],
    encode(frame: any) {
      this.pending.push(frame);
    },
  };
  return { amqp_transport, sasl_transport: undefined };
}

const names = (pending: any[]) =>
  pending.map((f) => `${f.performative.constructor.toString().split('#')[0]}:${f.channel}`);

test("a link's Transfers and Flows wait for the server's Attach of that handle, in order", () => {
  const connection = fakeConnection();
  assert.equal(serveLikeTheService(connection, OPTIONS), true);
  const transport = connection.amqp_transport;
  const encode = (channel: number, performative: any) => transport.encode(frames.amqp_frame(channel, performative));
  encode(0, frames.begin({ remote_channel: 0, next_outgoing_id: 0, incoming_window: 1, outgoing_window: 1 }));
  // Session-level flow (no handle) and a link on another channel are not held.
  encode(0, frames.flow({ incoming_window: 1, next_outgoing_id: 0, outgoing_window: 1 }));
  encode(
    0,
    frames.transfer({ handle: 0, delivery_id: 0, delivery_tag: Buffer.from('a'), message_format: 0, settled: true }),
  );
  encode(0, frames.flow({ incoming_window: 1, next_outgoing_id: 0, outgoing_window: 1, handle: 0, link_credit: 1 }));
  assert.deepEqual(names(transport.pending), ['begin:0', 'flow:0'], 'the transfer and the link flow wait');
  encode(0, frames.attach({ name: 'l', handle: 0, role: false }));
  assert.deepEqual(names(transport.pending), ['begin:0', 'flow:0', 'attach:0', 'transfer:0', 'flow:0']);
  // Once attached, frames go straight through; after a Detach the handle is free and waits again.
  encode(
    0,
    frames.transfer({ handle: 0, delivery_id: 1, delivery_tag: Buffer.from('b'), message_format: 0, settled: true }),
  );
  encode(0, frames.detach({ handle: 0, closed: true }));
  encode(
    0,
    frames.transfer({ handle: 0, delivery_id: 2, delivery_tag: Buffer.from('c'), message_format: 0, settled: true }),
  );
  assert.deepEqual(names(transport.pending).slice(5), ['transfer:0', 'detach:0']);
  // Every queued frame was completed.
  for (const frame of transport.pending) assert.ok(frame.performative.value.length >= 1);
  assert.equal(transport.pending[2].performative.value.length, 14);
});

test('frames queued before the connection was served (the SASL mechanisms) are completed too', () => {
  const outcome = frames.sasl_outcome({ code: 0 });
  const saslTransport = {
    pending: [{ type: 1, channel: 0, performative: outcome }],
    encode(frame: any) {
      this.pending.push(frame);
    },
  };
  const connection = { ...fakeConnection(), sasl_transport: { transports: { 3: { transport: saslTransport } } } };
  serveLikeTheService(connection, OPTIONS);
  assert.equal(outcome.value.length, 2, 'code and additional-data');
});

test("completing an empty source or target leaves rhea's shared empty list alone", () => {
  const attach = frames.attach({ name: 'link', handle: 0, role: false });
  attach.source = terminus.source({}).described();
  attach.target = terminus.target({}).described();
  completePerformative(attach, OPTIONS);
  const fields = wireFields(attach);
  assert.equal(fields[5].value.length, 11);
  assert.equal(fields[6].value.length, 7, 'the target has its own 7 fields, not the source 11');
  // rhea hands out one array for every empty list (types.List0); it must still be empty.
  assert.deepEqual(types.List0().value, []);
  assert.equal(new types.Reader(Buffer.from([0x45])).read().value.length, 0);
});
