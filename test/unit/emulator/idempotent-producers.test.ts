import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  IdempotentProducers,
  OUT_OF_ORDER_SEQUENCE,
  PRODUCER_EPOCH,
  PRODUCER_EPOCH_STOLEN,
  PRODUCER_ID,
  PRODUCER_SEQUENCE_NUMBER,
} from '../../../src/emulator/internal/idempotent-producers.ts';

/** The reply's values as plain numbers (they are typed AMQP values: short, long, int). */
function values(reply: ReturnType<IdempotentProducers['attach']>): { epoch: number; id: number; seq: number } {
  assert.equal(reply.ok, true);
  if (!reply.ok) throw new Error('unreachable');
  const v = (k: string) => Number((reply.properties[k] as { value: unknown }).value);
  return { epoch: v(PRODUCER_EPOCH), id: v(PRODUCER_ID), seq: v(PRODUCER_SEQUENCE_NUMBER) };
}

function annotations(id: number, epoch: number, seq: number): Record<string, unknown> {
  return { [PRODUCER_ID]: id, [PRODUCER_EPOCH]: epoch, [PRODUCER_SEQUENCE_NUMBER]: seq };
}

test('a producer attaching with no state gets a new id, epoch 0 and sequence number 0', () => {
  const producers = new IdempotentProducers();
  const a = values(producers.attach('hub', '0', {}));
  const b = values(
    producers.attach('hub', '0', { [PRODUCER_EPOCH]: 1, [PRODUCER_ID]: null, [PRODUCER_SEQUENCE_NUMBER]: null }),
  );
  assert.deepEqual([a.epoch, a.seq, b.epoch, b.seq], [0, 0, 1, 0]);
  assert.notEqual(a.id, b.id);
});

test('a negative epoch, id or sequence number is refused with the service text', () => {
  const reply = new IdempotentProducers().attach('hub', '0', {
    [PRODUCER_EPOCH]: -1,
    [PRODUCER_ID]: null,
    [PRODUCER_SEQUENCE_NUMBER]: null,
  });
  assert.equal(reply.ok, false);
  if (reply.ok) return;
  assert.equal(reply.error.condition, 'com.microsoft:argument-out-of-range');
  assert.match(
    reply.error.description,
    new RegExp(
      String.raw`^Invalid range for idempotent producer state\. Producer Id, Epoch, and Sequence Number` +
        String.raw` must be zero or positive\.$`,
    ),
  );
});

test('sequence numbers must rise: a batch repeating or going below the last published one is refused', () => {
  const producers = new IdempotentProducers();
  const { id } = values(producers.attach('hub', '0', {}));
  const first = producers.admit('hub', '0', annotations(id, 0, 1), 5);
  assert.equal(first.ok, true);
  if (first.ok) first.commit();
  // A second client resumes the same producer from an older sequence number: echoed, not adopted.
  const resumed = values(
    producers.attach('hub', '0', { [PRODUCER_ID]: id, [PRODUCER_EPOCH]: null, [PRODUCER_SEQUENCE_NUMBER]: 1 }),
  );
  assert.equal(resumed.seq, 1);
  const old = producers.admit('hub', '0', annotations(id, 0, 2), 1);
  assert.equal(old.ok, false);
  if (!old.ok) {
    assert.equal(old.error.condition, OUT_OF_ORDER_SEQUENCE);
    assert.match(old.error.description, /old sequence/);
  }
  const next = producers.admit('hub', '0', annotations(id, 0, 6), 1);
  assert.equal(next.ok, true);
});

test('a higher epoch takes the producer over: the older owner is refused with Received and Current', () => {
  const producers = new IdempotentProducers();
  const { id } = values(producers.attach('hub', '0', {}));
  const one = producers.admit('hub', '0', annotations(id, 0, 1), 1);
  if (one.ok) one.commit();
  assert.equal(
    values(producers.attach('hub', '0', { [PRODUCER_ID]: id, [PRODUCER_EPOCH]: 1, [PRODUCER_SEQUENCE_NUMBER]: 1 }))
      .epoch,
    1,
  );
  const two = producers.admit('hub', '0', annotations(id, 1, 2), 1);
  assert.equal(two.ok, true);
  if (two.ok) two.commit();
  const stale = producers.admit('hub', '0', annotations(id, 0, 3), 1);
  assert.equal(stale.ok, false);
  if (!stale.ok) {
    assert.equal(stale.error.condition, PRODUCER_EPOCH_STOLEN);
    assert.match(stale.error.description, /Received:0 Current:1/);
  }
  const staleAttach = producers.attach('hub', '0', {
    [PRODUCER_ID]: id,
    [PRODUCER_EPOCH]: 0,
    [PRODUCER_SEQUENCE_NUMBER]: 2,
  });
  assert.equal(staleAttach.ok, false);
});

test('state is per partition, and a refused batch leaves it unchanged', () => {
  const producers = new IdempotentProducers();
  const { id } = values(producers.attach('hub', '0', {}));
  values(producers.attach('hub', '1', { [PRODUCER_ID]: id, [PRODUCER_EPOCH]: null, [PRODUCER_SEQUENCE_NUMBER]: null }));
  const p0 = producers.admit('hub', '0', annotations(id, 0, 1), 3);
  if (p0.ok) p0.commit();
  // Partition 1 has its own sequence: 1 is new there.
  assert.equal(producers.admit('hub', '1', annotations(id, 0, 1), 1).ok, true);
  assert.equal(producers.admit('hub', '0', annotations(id, 0, 3), 1).ok, false);
  assert.equal(producers.admit('hub', '0', annotations(id, 0, 4), 1).ok, true);
});

test('transfers without producer annotations (plain producers) are admitted', () => {
  assert.equal(new IdempotentProducers().admit('hub', '0', undefined, 1).ok, true);
});

test(
  'a retry of the last accepted batch (its acknowledgement lost) is accepted as a duplicate, an older one is ' + 'not',
  () => {
    const producers = new IdempotentProducers();
    const { id } = values(producers.attach('hub', '0', {}));
    for (const [first, count] of [
      [1, 2],
      [3, 2],
    ] as const) {
      const a = producers.admit('hub', '0', annotations(id, 0, first), count);
      assert.equal(a.ok && a.duplicate, false);
      if (a.ok) a.commit();
    }
    const retry = producers.admit('hub', '0', annotations(id, 0, 3), 2);
    assert.equal(retry.ok && retry.duplicate, true);
    assert.equal(producers.admit('hub', '0', annotations(id, 0, 1), 2).ok, false);
    const next = producers.admit('hub', '0', annotations(id, 0, 5), 1);
    assert.equal(next.ok && next.duplicate, false);
  },
);
