/**
 * A consumer link's deliveries with runtime metrics: each carries the partition's last enqueued event as
 * of its sending (the section is reused within a millisecond only while no event was appended), and the
 * pieces handed to a presized connection are the same bytes as the joined payload of a stock one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import rhea from 'rhea';
import { ConsumerLink } from '../../../src/emulator/internal/consumer-link.ts';
import { PartitionLog } from '../../../src/emulator/internal/partition-log.ts';
import { SplicedPayload, usePresizedFrames } from '../../../src/emulator/internal/rhea-server-output.ts';
import type { ReceiverLinkRecord } from '../../../src/emulator/types.ts';

const { message } = rhea as any;

function encodeEvent(body: string): Buffer {
  return message.encode({ body: message.data_section(Buffer.from(body)) });
}

/** A server-side sender stand-in: sends while it has credit and records each payload as bytes. */
function fakeSender(connection: unknown): { credit: number; payloads: unknown[]; [k: string]: unknown } {
  const sender = {
    credit: 0,
    payloads: [] as unknown[],
    connection,
    _draining: false,
    sendable: () => sender.credit > 0,
    is_open: () => true,
    send(payload: unknown) {
      sender.payloads.push(payload);
      sender.credit--;
    },
  };
  return sender;
}

/** No pause, no delay. */
const NO_FAULTS = { isPaused: () => false, delayMs: () => 0 };

const bytesOf = (payload: unknown): Buffer =>
  payload instanceof SplicedPayload ? payload.slice(0, payload.length) : (payload as Buffer);

/** Delivers two events, appends a third while the link has no credit, then delivers the rest. */
function deliver(connection: unknown): { payloads: Buffer[]; log: PartitionLog } {
  const log = new PartitionLog('hub', '0');
  log.append([encodeEvent('a'), encodeEvent('b')]);
  const sender = fakeSender(connection);
  const link = new ConsumerLink(sender, log, '$Default', undefined, true, 0, {} as ReceiverLinkRecord, NO_FAULTS);
  sender.credit = 1;
  link.pump();
  log.append([encodeEvent('c')]); // within the same millisecond as the first delivery (Date.now is fixed)
  sender.credit = 5;
  link.pump();
  link.markClosed();
  return { payloads: sender.payloads.map(bytesOf), log };
}

test(
  'every delivery carries the last enqueued event as of its sending, also after an append in the same ' + 'millisecond',
  (t) => {
    t.mock.method(Date, 'now', () => 1_700_000_000_000);
    const { payloads, log } = deliver({});
    assert.equal(payloads.length, 3);
    const decoded = payloads.map((p) => message.decode(p));
    assert.deepEqual(
      decoded.map((m: any) => m.delivery_annotations.last_enqueued_sequence_number),
      [1, 2, 2],
    );
    const offsetOf = (sequenceNumber: number): string => log.offsets.text(log.get(sequenceNumber)!.offset);
    assert.deepEqual(
      decoded.map((m: any) => m.delivery_annotations.last_enqueued_offset),
      [offsetOf(1), offsetOf(2), offsetOf(2)],
    );
    assert.deepEqual(
      decoded.map((m: any) => m.body.content.toString()),
      ['a', 'b', 'c'],
    );
    assert.deepEqual(
      decoded.map((m: any) => m.message_annotations['x-opt-sequence-number']),
      [0, 1, 2],
    );
    const retrievedAt = decoded.map((m: any) => m.delivery_annotations.runtime_info_retrieval_time_utc.getTime());
    assert.deepEqual(retrievedAt, Array(3).fill(1_700_000_000_000));
  },
);

test('a presized connection gets the delivery in pieces, the same bytes a stock connection gets joined', () => {
  const connection = (rhea as any).create_container().create_connection({});
  assert.ok(usePresizedFrames(connection));
  const log = new PartitionLog('hub', '0');
  log.append([encodeEvent('a')]);
  const sender = fakeSender(connection);
  const link = new ConsumerLink(sender, log, '$Default', undefined, true, 0, {} as ReceiverLinkRecord, NO_FAULTS);
  sender.credit = 1;
  link.pump();
  link.markClosed();
  assert.ok(sender.payloads[0] instanceof SplicedPayload);
  const decoded = message.decode(bytesOf(sender.payloads[0]));
  assert.equal(decoded.delivery_annotations.last_enqueued_sequence_number, 0);
  assert.equal(decoded.body.content.toString(), 'a');
  // The stock path joins the same pieces.
  const stock = fakeSender({});
  const stockLink = new ConsumerLink(stock, log, '$Default', undefined, true, 0, {} as ReceiverLinkRecord, NO_FAULTS);
  stock.credit = 1;
  stockLink.pump();
  stockLink.markClosed();
  assert.ok(Buffer.isBuffer(stock.payloads[0]));
  const strip = (b: Buffer): unknown => ({ ...message.decode(b), delivery_annotations: undefined });
  assert.deepEqual(strip(stock.payloads[0] as Buffer), strip(bytesOf(sender.payloads[0])));
});
