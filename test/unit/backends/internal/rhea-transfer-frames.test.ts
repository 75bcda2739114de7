/**
 * readTransferFrame must give what rhea's `frames.read_frame` gives for every transfer it takes (field by
 * field, as rhea's getters read them), and leave to rhea what it does not take. Frames are written by rhea's
 * own encoder, so each case is a frame rhea itself would send.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readTransferFrame } from '../../../../src/backends/internal/rhea-transfer-frames.ts';

const require = createRequire(import.meta.url);
const frames = require('rhea/lib/frames.js') as {
  transfer(fields: object): unknown;
  flow(fields: object): unknown;
  amqp_frame(channel: number, performative: unknown, payload?: Buffer): unknown;
  write_frame(frame: unknown): Buffer;
  read_frame(buffer: Buffer): {
    channel: number;
    type: number;
    performative: Record<string, unknown>;
    payload?: Buffer;
  };
};
const message = require('rhea/lib/message.js') as { accepted(): { described(): unknown } };

/** The fields of rhea's Transfer performative: the accessors its prototype defines. */
function fieldsOf(performative: object): string[] {
  const prototype = Object.getPrototypeOf(performative) as object;
  return Object.entries(Object.getOwnPropertyDescriptors(prototype))
    .filter(([, d]) => d.get !== undefined)
    .map(([name]) => name);
}

function frameOf(channel: number, fields: object, payload?: Buffer): Buffer {
  return frames.write_frame(frames.amqp_frame(channel, frames.transfer(fields), payload));
}

const CASES: readonly [string, number, object, Buffer | undefined][] = [
  [
    'an Event Hubs delivery',
    3,
    { handle: 0, delivery_id: 7, delivery_tag: Buffer.from([1]), message_format: 0, settled: true },
    Buffer.from('payload'),
  ],
  [
    'large ids, a long tag',
    65535,
    {
      handle: 300,
      delivery_id: 4_000_000_000,
      delivery_tag: Buffer.alloc(300, 7),
      message_format: 0x00fe0000,
      settled: false,
    },
    Buffer.alloc(5000, 1),
  ],
  [
    'a first frame of several',
    0,
    { handle: 1, delivery_id: 0, delivery_tag: Buffer.from('t'), message_format: 0, more: true },
    Buffer.from('part'),
  ],
  ['a continuation frame', 0, { handle: 1, more: false }, Buffer.from('rest')],
  ['no payload', 1, { handle: 2, delivery_id: 1, delivery_tag: Buffer.alloc(0), settled: true }, undefined],
  [
    'every plain field',
    2,
    {
      handle: 0,
      delivery_id: 9,
      delivery_tag: Buffer.from('x'),
      message_format: 0,
      settled: true,
      more: false,
      rcv_settle_mode: 1,
      resume: true,
      aborted: false,
      batchable: true,
    },
    Buffer.from('p'),
  ],
];

for (const [name, channel, fields, payload] of CASES) {
  test(`a transfer read in one pass is what rhea reads: ${name}`, () => {
    const bytes = frameOf(channel, fields, payload);
    const ours = readTransferFrame(bytes);
    const rheas = frames.read_frame(bytes);
    assert.ok(ours, 'taken');
    assert.equal(ours.channel, rheas.channel);
    assert.equal(ours.type, rheas.type);
    assert.deepEqual(ours.payload, rheas.payload);
    const performative = ours.performative as unknown as Record<string, unknown>;
    const names = fieldsOf(rheas.performative);
    assert.equal(names.length, 11, "rhea's transfer has 11 fields");
    for (const field of names) assert.deepEqual(performative[field], rheas.performative[field], field);
    // It dispatches as rhea's does: to the handler's on_transfer, with the frame.
    const seen: unknown[] = [];
    ours.performative!.dispatch({ on_transfer: (f: unknown) => seen.push(f) }, ours);
    assert.deepEqual(seen, [ours]);
  });
}

test('a transfer with a delivery state, other performatives and malformed frames are left to rhea', () => {
  const transfer = frames.transfer({ handle: 0, delivery_id: 1, delivery_tag: Buffer.from('t') }) as {
    value: unknown[];
  };
  while (transfer.value.length < 8) transfer.value.push(null);
  transfer.value[7] = message.accepted().described();
  const withState = frames.write_frame(frames.amqp_frame(0, transfer));
  assert.ok(frames.read_frame(withState).performative.state, 'rhea reads a state');
  assert.equal(readTransferFrame(withState), undefined);
  const flow = frames.write_frame(
    frames.amqp_frame(
      0,
      frames.flow({ next_incoming_id: 1, incoming_window: 5, next_outgoing_id: 1, outgoing_window: 5 }),
    ),
  );
  assert.equal(readTransferFrame(flow), undefined);
  const good = frameOf(
    0,
    { handle: 0, delivery_id: 1, delivery_tag: Buffer.from('tag'), settled: true },
    Buffer.from('p'),
  );
  for (let cut = 9; cut < good.length - 1; cut++) {
    const truncated = Buffer.from(good.subarray(0, cut));
    truncated.writeUInt32BE(cut, 0);
    const read = readTransferFrame(truncated);
    if (read)
      assert.deepEqual(
        read.performative,
        readTransferFrame(good)!.performative,
        `cut at ${cut}: a shorter payload only`,
      );
  }
  assert.equal(readTransferFrame(Buffer.from([0, 0, 0, 8, 2, 0, 0, 0])), undefined, 'an empty frame (heartbeat)');
});
