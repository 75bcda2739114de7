import { test } from 'node:test';
import assert from 'node:assert/strict';
import { partitionIndexForKey } from '../../../src/emulator/internal/partition-key-hash.ts';

test('partition keys map to the partitions of the service test vectors (EVENT-HUBS-PROTOCOL.md)', () => {
  assert.equal(partitionIndexForKey('alphabet', 3), 0);
  assert.equal(partitionIndexForKey('alphabet', 11), 4);
  assert.equal(partitionIndexForKey('TheBestParitionEver', 4), 2);
  assert.equal(partitionIndexForKey('TheWorstParitionEver', 15), 1);
});

test('the hash covers keys of every tail length and multi-byte UTF-8 and stays within range', () => {
  const seen = new Set<number>();
  for (let len = 0; len < 40; len++) {
    const key = 'kéy-'.repeat(10).slice(0, len);
    const p = partitionIndexForKey(key, 32);
    assert.ok(p >= 0 && p < 32);
    seen.add(p);
  }
  assert.ok(seen.size > 10, 'keys spread over partitions');
});
