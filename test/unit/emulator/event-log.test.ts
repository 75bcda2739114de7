import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import rhea from 'rhea';
import { splitBatchEnvelope, stampEvent, runtimeInfoSection } from '../../../src/emulator/internal/event-message.ts';
import { PartitionLog } from '../../../src/emulator/internal/partition-log.ts';
import {
  parseStartFilter,
  pastEndRefusal,
  resolveStartSequenceNumber,
} from '../../../src/emulator/internal/start-position.ts';
import { NUMERIC_OFFSETS, OPAQUE_OFFSETS } from '../../../src/emulator/internal/offset-format.ts';

const { message } = rhea as any;

function encodeEvent(body: string, extra: Record<string, unknown> = {}): Buffer {
  return message.encode({ body: message.data_section(Buffer.from(body)), ...extra });
}

test('stamping keeps the producer sections and adds sequence number, offset (string) and enqueued time', () => {
  const original = encodeEvent('payload', {
    durable: true,
    message_id: 'id-1',
    application_properties: { a: 1 },
    message_annotations: { 'x-opt-partition-key': 'k', 'x-opt-sequence-number': 99, custom: 'keep' },
    delivery_annotations: { hop: 'drop' },
  });
  const stamped = stampEvent(original, { sequenceNumber: 7, offset: '1234', enqueuedTimeMs: 1_700_000_000_000 });
  const decoded = message.decode(stamped.bytes);
  assert.equal(decoded.message_id, 'id-1');
  assert.equal(decoded.durable, true);
  assert.deepEqual(decoded.application_properties, { a: 1 });
  assert.equal(Buffer.from(decoded.body.content).toString(), 'payload');
  assert.equal(decoded.message_annotations['x-opt-sequence-number'], 7, 'a stale copy is replaced');
  assert.equal(decoded.message_annotations['x-opt-offset'], '1234');
  assert.equal(decoded.message_annotations['x-opt-enqueued-time'].getTime(), 1_700_000_000_000);
  assert.equal(decoded.message_annotations['x-opt-partition-key'], 'k');
  assert.equal(decoded.message_annotations.custom, 'keep');
  assert.equal(decoded.delivery_annotations, undefined, 'delivery annotations are hop-by-hop');
  assert.equal(stamped.partitionKey, 'k');

  // Runtime metrics go right after the header.
  const at = stamped.deliveryAnnotationsAt;
  const withMetrics = Buffer.concat([
    stamped.bytes.subarray(0, at),
    runtimeInfoSection({ lastSequenceNumber: 9, lastOffset: '5000', lastEnqueuedTimeMs: 1, retrievalTimeMs: 2 }),
    stamped.bytes.subarray(at),
  ]);
  const m = message.decode(withMetrics);
  assert.equal(m.delivery_annotations.last_enqueued_sequence_number, 9);
  assert.equal(m.delivery_annotations.last_enqueued_offset, '5000');
  assert.equal(m.durable, true);
});

test('batch envelopes split into their events and give the envelope partition key', () => {
  const events = [encodeEvent('a'), encodeEvent('b')];
  const envelope = message.encode({
    body: message.data_sections(events),
    message_annotations: { 'x-opt-partition-key': 'pk' },
  });
  const split = splitBatchEnvelope(envelope);
  assert.equal(split.partitionKey, 'pk');
  assert.deepEqual(
    split.events.map((e) => Buffer.from(e)),
    events,
  );
});

test('the log assigns sequence numbers and byte offsets, seeks, and expires by retention', () => {
  const log = new PartitionLog('hub', '0');
  const sizes = ['one', 'two', 'three'].map((b) => encodeEvent(b));
  log.append(sizes, undefined, 1_000);
  log.append([encodeEvent('four')], undefined, 2_000);
  assert.equal(log.endSequenceNumber, 4);
  assert.equal(log.get(1)!.offset, sizes[0]!.length);
  assert.equal(log.get(2)!.offset, sizes[0]!.length + sizes[1]!.length);
  assert.equal(log.seekOffset(log.get(2)!.offset, true), 2);
  assert.equal(log.seekOffset(log.get(2)!.offset, false), 3);
  assert.equal(log.seekEnqueuedTime(1_000), 3);
  assert.equal(log.seekEnqueuedTime(999), 0);

  assert.equal(resolveStartSequenceNumber(parseStartFilter("amqp.annotation.x-opt-offset > '-1'"), log), 0);
  assert.equal(resolveStartSequenceNumber(parseStartFilter("amqp.annotation.x-opt-offset > '@latest'"), log), 4);
  assert.equal(resolveStartSequenceNumber(parseStartFilter("amqp.annotation.x-opt-sequence-number >= '2'"), log), 2);
  assert.equal(resolveStartSequenceNumber(parseStartFilter("amqp.annotation.x-opt-sequence-number > '2'"), log), 3);
  assert.equal(
    resolveStartSequenceNumber(parseStartFilter("amqp.annotation.x-opt-sequence-number > '100'"), log),
    4,
    'clamped to the end',
  );
  assert.throws(() => parseStartFilter('x > 1'), /not supported/);

  assert.equal(log.expire(500, 1_600), 3, 'events enqueued before now - retention go');
  assert.equal(log.beginSequenceNumber, 3);
  assert.equal(log.get(2), undefined);
  assert.equal(
    resolveStartSequenceNumber(parseStartFilter("amqp.annotation.x-opt-sequence-number >= '0'"), log),
    3,
    'a lagging reader starts at the first retained event',
  );
  log.expire(500, 10_000);
  assert.equal(log.isEmpty, true);
  assert.equal(log.lastEnqueuedPosition.sequenceNumber, 3, 'the last enqueued event survives full expiry');
});

describe('pastEndRefusal (the service refuses a position past the end of the partition)', () => {
  test(
    'a sequence number or offset past the last event is refused with the service text; the next event is ' + 'fine',
    () => {
      const log = new PartitionLog('hub', '0');
      log.append([encodeEvent('a'), encodeEvent('b')]);
      const last = log.lastEnqueuedPosition;
      assert.equal(
        pastEndRefusal({ kind: 'sequence', sequenceNumber: last.sequenceNumber, inclusive: false }, log),
        undefined,
      );
      assert.equal(
        pastEndRefusal({ kind: 'sequence', sequenceNumber: last.sequenceNumber + 1, inclusive: true }, log),
        undefined,
      );
      assert.match(
        pastEndRefusal({ kind: 'sequence', sequenceNumber: 1000, inclusive: false }, log) ?? '',
        /^The supplied sequence number '1000' is invalid\. The last sequence number in the system is '1'\.$/,
      );
      assert.equal(pastEndRefusal({ kind: 'offset', offset: String(last.offset), inclusive: false }, log), undefined);
      assert.match(
        pastEndRefusal({ kind: 'offset', offset: '999999', inclusive: false }, log) ?? '',
        /The supplied offset '999999' is invalid/,
      );
      assert.equal(pastEndRefusal({ kind: 'offset', offset: '@latest', inclusive: false }, log), undefined);
      assert.equal(pastEndRefusal({ kind: 'time', timeMs: Date.now() + 60_000, inclusive: false }, log), undefined);
    },
  );
});

describe('opaque offsets (geo-replicated namespaces)', () => {
  test('offsets are opaque text that round-trips to the same event; numbers and unknown texts are refused', () => {
    const log = new PartitionLog('hub', '0', OPAQUE_OFFSETS);
    log.append([encodeEvent('a'), encodeEvent('bb'), encodeEvent('ccc')]);
    const texts = [0, 1, 2].map((seq) => OPAQUE_OFFSETS.text(log.get(seq)!.offset));
    for (const text of texts) assert.match(text, /^g1:[0-9a-f]{16}:r$/);
    for (const text of texts) assert.ok(Number.isNaN(Number(text)), 'not a number a client could parse');
    const stamped = message.decode(log.get(1)!.bytes);
    assert.equal(stamped.message_annotations['x-opt-offset'], texts[1]);
    // Resuming after an offset text starts at the next event; inclusive at that event.
    assert.equal(resolveStartSequenceNumber(parseStartFilter(`amqp.annotation.x-opt-offset > '${texts[1]}'`), log), 2);
    assert.equal(resolveStartSequenceNumber(parseStartFilter(`amqp.annotation.x-opt-offset >= '${texts[1]}'`), log), 1);
    assert.equal(pastEndRefusal(parseStartFilter(`amqp.annotation.x-opt-offset > '${texts[2]}'`), log), undefined);
    assert.match(
      pastEndRefusal(parseStartFilter("amqp.annotation.x-opt-offset > '12'"), log) ?? '',
      /The offset '12' is not valid/,
    );
    assert.match(pastEndRefusal(parseStartFilter("amqp.annotation.x-opt-offset > 'g1:zz:r'"), log) ?? '', /not valid/);
    assert.equal(pastEndRefusal(parseStartFilter("amqp.annotation.x-opt-offset > '-1'"), log), undefined);
    assert.equal(OPAQUE_OFFSETS.text(-1), '-1');
    // The numeric format refuses opaque text the same way.
    assert.equal(NUMERIC_OFFSETS.parse(texts[0]!), undefined);
  });
});
