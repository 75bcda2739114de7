import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConsumerLink } from '../../../src/emulator/internal/consumer-link.ts';
import { MAX_NON_EPOCH_RECEIVERS, PartitionReaders } from '../../../src/emulator/internal/partition-readers.ts';

function link(epoch?: number, partitionId = '0', consumerGroup = '$Default'): ConsumerLink {
  return { epoch, consumerGroup, log: { hub: 'hub', partitionId } } as unknown as ConsumerLink;
}

test('a higher or equal epoch takes over; a lower or missing one is refused while an epoch reader exists', () => {
  const readers = new PartitionReaders();
  const first = link(1);
  assert.deepEqual(readers.admit('hub', '$Default', '0', 1), { ok: true, stolen: [] });
  readers.add(first);
  const equal = readers.admit('HUB', '$default', '0', 1);
  assert.ok(equal.ok && equal.stolen[0] === first, 'equal epoch steals (names compare case-insensitively)');
  readers.add(link(1));
  const lower = readers.admit('hub', '$Default', '0', 0);
  assert.equal(lower.ok, false);
  assert.equal(!lower.ok && lower.condition, 'amqp:link:stolen');
  const none = readers.admit('hub', '$Default', '0', undefined);
  assert.ok(!none.ok && /non-epoch receiver is not allowed/.test(none.description));
  assert.deepEqual(
    readers.admit('hub', '$Default', '1', undefined),
    { ok: true, stolen: [] },
    'other partitions are independent',
  );
  assert.deepEqual(
    readers.admit('hub', 'other', '0', undefined),
    { ok: true, stolen: [] },
    'other consumer groups are independent',
  );
});

test('an epoch reader takes over from non-epoch readers; at most five non-epoch readers share a partition', () => {
  const readers = new PartitionReaders();
  const plain = Array.from({ length: MAX_NON_EPOCH_RECEIVERS }, () => link());
  for (const l of plain) {
    assert.equal(readers.admit('hub', '$Default', '0', undefined).ok, true);
    readers.add(l);
  }
  const sixth = readers.admit('hub', '$Default', '0', undefined);
  assert.ok(!sixth.ok && sixth.condition === 'amqp:resource-limit-exceeded');
  const epoch = readers.admit('hub', '$Default', '0', 0);
  assert.ok(epoch.ok && epoch.stolen.length === MAX_NON_EPOCH_RECEIVERS);
  readers.remove(plain[0]!);
  assert.equal(readers.admit('hub', '$Default', '0', undefined).ok, true, 'the stolen readers were removed');
});
