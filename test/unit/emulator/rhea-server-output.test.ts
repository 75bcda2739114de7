/**
 * Guards the emulator's rhea workaround (src/emulator/internal/rhea-server-output.ts): it was written for
 * one rhea version and copies two of its functions. When rhea changes, these fail, so whoever upgrades
 * it re-reads the two functions and the workaround, then updates the version and fingerprints here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import {
  RHEA_VERSION_WRITTEN_FOR,
  encodePresizedFrame,
  installedRheaVersion,
  rheaMismatch,
  splicedPayload,
  usePresizedFrames,
  writesPresizedFrames,
} from '../../../src/emulator/internal/rhea-server-output.ts';

const require = createRequire(import.meta.url);
const rhea = require('rhea');
const frames = require('rhea/lib/frames.js');
const Transport = require('rhea/lib/transport.js');

const fingerprint = (fn: unknown) => createHash('sha256').update(String(fn)).digest('hex').slice(0, 16);

test('the installed rhea is the version the workaround was written for, with the internals it relies on', () => {
  assert.equal(RHEA_VERSION_WRITTEN_FOR, '3.0.5');
  assert.equal(installedRheaVersion(), RHEA_VERSION_WRITTEN_FOR);
  assert.equal(rheaMismatch(), undefined);
  // The two functions the workaround reproduces, unchanged since it was written (rhea 3.0.5).
  assert.equal(fingerprint(frames.write_frame), 'adbebbf3c6b19678', 'rhea frames.write_frame changed');
  assert.equal(fingerprint(Transport.prototype.write), '23f0ee08279616c0', 'rhea Transport.prototype.write changed');
  // A connection owns its AMQP transport object, which is where the workaround installs its writer.
  const connection = rhea.create_container().create_connection({});
  assert.ok(connection.amqp_transport instanceof Transport);
  assert.deepEqual(connection.amqp_transport.pending, []);
  assert.equal(connection.amqp_transport.header_sent, undefined);
});

test("presized frames are byte-identical to rhea's stock encoding", () => {
  const payloads = [undefined, Buffer.alloc(0), Buffer.alloc(1024, 0x61), Buffer.alloc(70_000, 0x62)];
  const performatives = [
    frames.open({ container_id: 'c', idle_time_out: 120_000, max_frame_size: 4_294_967_295 }),
    frames.flow({
      next_incoming_id: 1,
      incoming_window: 2048,
      next_outgoing_id: 0,
      outgoing_window: 4_294_967_295,
      handle: 3,
      delivery_count: 7,
      link_credit: 1000,
    }),
    frames.transfer({
      handle: 0,
      delivery_id: 123_456,
      delivery_tag: Buffer.from('7'),
      message_format: 0,
      settled: true,
    }),
  ];
  for (const performative of performatives) {
    for (const payload of payloads) {
      const frame = frames.amqp_frame(5, performative, payload);
      assert.deepEqual(encodePresizedFrame(frame), frames.write_frame(frame));
    }
  }
  const heartbeat = { channel: 0, type: frames.TYPE_AMQP };
  assert.deepEqual(encodePresizedFrame(heartbeat), frames.write_frame(heartbeat));
  const sasl = frames.sasl_frame(frames.sasl_mechanisms({ sasl_server_mechanisms: ['ANONYMOUS'] }));
  assert.deepEqual(encodePresizedFrame(sasl), frames.write_frame(sasl));
  const unknownType = { channel: 0, type: 9, performative: performatives[0] };
  assert.throws(() => encodePresizedFrame(unknownType), /Unknown frame type/);
});

test(
  'a payload in pieces encodes to the same frame as the joined payload, and rhea passes it through or splits ' + 'it',
  () => {
    const parts = [Buffer.from([0x00, 0x53, 0x70, 0x45]), Buffer.alloc(40, 0x71), Buffer.alloc(1024, 0x75)];
    const joined = Buffer.concat(parts);
    const transfer = frames.transfer({
      handle: 0,
      delivery_id: 9,
      delivery_tag: Buffer.from('9'),
      message_format: 0,
      settled: true,
    });
    const spliced = splicedPayload(parts);
    assert.equal(spliced.length, joined.length);
    assert.deepEqual(
      encodePresizedFrame(frames.amqp_frame(1, transfer, spliced)),
      frames.write_frame(frames.amqp_frame(1, transfer, joined)),
    );
    // rhea's session keeps a payload within the peer's frame size as it is, and splits a larger one with slice().
    const Session = require('rhea/lib/session.js');
    const whole = new Session({ options: {}, max_frame_size: 65_536 }, 0).outgoing.send(
      {},
      Buffer.from('1'),
      spliced,
      0,
    );
    assert.equal(whole.data.length, 1);
    assert.equal(whole.data[0], spliced);
    const split = new Session({ options: {}, max_frame_size: 512 }, 0).outgoing.send({}, Buffer.from('1'), spliced, 0);
    assert.ok(split.data.length > 1);
    assert.deepEqual(Buffer.concat(split.data), joined);
  },
);

test("the presized writer is set on one connection's transport, never on rhea's shared functions", () => {
  const stockWriteFrame = frames.write_frame;
  const stockWrite = Transport.prototype.write;
  const container = rhea.create_container();
  const patched = container.create_connection({});
  const other = container.create_connection({});
  assert.equal(usePresizedFrames(patched), true);
  assert.ok(writesPresizedFrames(patched));
  assert.ok(Object.hasOwn(patched.amqp_transport, 'write'));
  assert.equal(writesPresizedFrames(other), false);
  assert.equal(Object.hasOwn(other.amqp_transport, 'write'), false);
  assert.equal(other.amqp_transport.write, stockWrite);
  assert.equal(frames.write_frame, stockWriteFrame);
  assert.equal(Transport.prototype.write, stockWrite);
  assert.equal(usePresizedFrames({}), false, 'an object without an AMQP transport is left alone');
});

test('a patched transport writes the header the stock way, then the same bytes as the stock writer', () => {
  const written: Buffer[] = [];
  const expected: Buffer[] = [];
  const socket = { write: (b: Buffer) => written.push(Buffer.from(b)) };
  const reference = { write: (b: Buffer) => expected.push(Buffer.from(b)) };
  const patched = rhea.create_container().create_connection({}).amqp_transport;
  const stock = rhea.create_container().create_connection({}).amqp_transport;
  usePresizedFrames({ amqp_transport: patched });
  const begin = frames.begin({ next_outgoing_id: 0, incoming_window: 10, outgoing_window: 10 });
  const transfer = frames.transfer({ handle: 0, delivery_id: 1, delivery_tag: Buffer.from('1') });
  for (const transport of [patched, stock]) {
    transport.identifier = 'x';
    transport.encode(frames.amqp_frame(0, begin));
  }
  patched.write(socket);
  stock.write(reference);
  for (const transport of [patched, stock]) transport.encode(frames.amqp_frame(1, transfer, Buffer.alloc(2048, 0x63)));
  patched.write(socket);
  stock.write(reference);
  assert.equal(written.length, 3, 'header, begin, transfer');
  assert.deepEqual(written, expected);
  assert.deepEqual(patched.pending, []);
});
