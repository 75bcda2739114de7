import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { keepRawTransfers, rawTransferOf } from '../../../src/emulator/internal/raw-transfers.ts';
import { readTransfer } from '../../../src/emulator/internal/producer-transfer.ts';
import { RHEA_VERSION_WRITTEN_FOR, installedRheaVersion } from '../../../src/emulator/internal/rhea-server-output.ts';

const require = createRequire(import.meta.url);
const message = require('rhea/lib/message.js');

/** A session whose transfer intake dispatches each complete delivery to `onMessage`, as rhea's does. */
function fakeSession(onMessage: (link: unknown, format: number) => void) {
  const pending = new Map<unknown, { format: number }>();
  return {
    incoming: {
      on_transfer(frame: any, receiver: unknown) {
        const current = pending.get(receiver) ?? { format: frame.performative.message_format ?? 0 };
        pending.set(receiver, current);
        if (!frame.performative.more) {
          pending.delete(receiver);
          onMessage(receiver, current.format);
        }
      },
    },
  };
}

// The Python SDK's application property `flag: True` as it writes it: a boolean in its one-octet form.
const PYTHON_BOOLEAN_MESSAGE = Buffer.concat([
  Buffer.from([0x00, 0x53, 0x74, 0xc1, 0x09, 0x02, 0xa1, 0x04]),
  Buffer.from('flag'),
  Buffer.from([0x56, 0x01]),
  Buffer.from([0x00, 0x53, 0x75, 0xa0, 0x02]),
  Buffer.from('hi'),
]);

test('a plain transfer is stored as the client sent it, not as rhea re-encodes its decoding', () => {
  assert.equal(
    message.decode(PYTHON_BOOLEAN_MESSAGE).application_properties.flag,
    1,
    'rhea alone reads the boolean as 1',
  );
  const stored: Buffer[] = [];
  const link = {};
  const session = fakeSession((receiver) => {
    const contents = readTransfer({ message: message.decode(PYTHON_BOOLEAN_MESSAGE), receiver, delivery: { id: 0 } });
    assert.ok(contents.ok);
    stored.push(...contents.events);
  });
  assert.equal(keepRawTransfers(session), true);
  // In two frames, as a client splits a message larger than the frame size.
  session.incoming.on_transfer(
    { payload: PYTHON_BOOLEAN_MESSAGE.subarray(0, 10), performative: { message_format: 0, more: true } },
    link,
  );
  session.incoming.on_transfer({ payload: PYTHON_BOOLEAN_MESSAGE.subarray(10), performative: { more: false } }, link);
  assert.deepEqual(stored, [PYTHON_BOOLEAN_MESSAGE]);
  assert.equal(rawTransferOf(link), undefined, 'the bytes are held only while the delivery is dispatched');
});

test('batch envelopes and aborted deliveries are not collected', () => {
  const seen: Array<Buffer | undefined> = [];
  const link = {};
  const session = fakeSession((receiver) => seen.push(rawTransferOf(receiver)));
  keepRawTransfers(session);
  session.incoming.on_transfer(
    { payload: Buffer.from('batch'), performative: { message_format: 0x80013700, more: false } },
    link,
  );
  session.incoming.on_transfer({ payload: Buffer.from('part'), performative: { message_format: 0, more: true } }, link);
  session.incoming.on_transfer({ payload: Buffer.alloc(0), performative: { more: true, aborted: true } }, link);
  session.incoming.on_transfer(
    { payload: Buffer.from('next'), performative: { message_format: 0, more: false } },
    link,
  );
  assert.deepEqual(seen, [undefined, Buffer.from('next')], 'the batch is not collected; the aborted part is dropped');
});

test('rhea is the version the raw-transfer intake was written for', () => {
  assert.equal(
    installedRheaVersion(),
    RHEA_VERSION_WRITTEN_FOR,
    'review src/emulator/internal/raw-transfers.ts against the new rhea',
  );
});
