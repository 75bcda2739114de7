import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseStartPosition, resolveStartPosition } from '../../../src/receiver/start-position.ts';
import type { StartConfig } from '../../../src/receiver/start-position.ts';

const base: StartConfig = { startPosition: { kind: 'latest' }, partitionStart: {}, partition: '', offset: '' };
const now = new Date('2026-11-21T12:00:00Z');

test('a checkpoint always wins, resuming right after it', () => {
  const r = chooseStartPosition(
    '0',
    { partitionId: '0', sequenceNumber: 41, offset: '4100' },
    { ...base, startPosition: { kind: 'earliest' }, partitionStart: { '0': { sequence_number: 3, inclusive: true } } },
  );
  assert.deepEqual(r, {
    position: { kind: 'sequenceNumber', sequenceNumber: 41, inclusive: false },
    source: 'checkpoint',
  });
});

test('per-partition overrides, then the Go partition+offset, then start_position', () => {
  assert.deepEqual(
    chooseStartPosition('1', undefined, { ...base, partitionStart: { '1': { sequence_number: 7, inclusive: true } } })
      .position,
    { kind: 'sequenceNumber', sequenceNumber: 7, inclusive: true },
  );
  assert.deepEqual(
    chooseStartPosition('1', undefined, { ...base, partitionStart: { '1': { offset: '500', inclusive: false } } })
      .position,
    { kind: 'offset', offset: '500', inclusive: false },
  );
  assert.deepEqual(chooseStartPosition('2', undefined, { ...base, partition: '2', offset: '1234' }).position, {
    kind: 'offset',
    offset: '1234',
    inclusive: false,
  });
  assert.deepEqual(chooseStartPosition('3', undefined, { ...base, partition: '2', offset: '1234' }).position, {
    kind: 'latest',
  });
});

test('a parsed start_position becomes a reader position; a look-back is counted from now', () => {
  assert.deepEqual(resolveStartPosition({ kind: 'latest' }), { kind: 'latest' });
  assert.deepEqual(resolveStartPosition({ kind: 'earliest' }), { kind: 'earliest' });
  const time = new Date('2026-01-02T15:04:05Z');
  assert.deepEqual(resolveStartPosition({ kind: 'enqueuedTime', enqueuedTime: time }, now), {
    kind: 'enqueuedTime',
    enqueuedTime: time,
  });
  assert.deepEqual(resolveStartPosition({ kind: 'lookBack', lookBackMs: 3_600_000 }, now), {
    kind: 'enqueuedTime',
    enqueuedTime: new Date('2026-11-21T11:00:00Z'),
  });
  const chosen = chooseStartPosition(
    '0',
    undefined,
    { ...base, startPosition: { kind: 'lookBack', lookBackMs: 5_400_000 } },
    now,
  );
  assert.deepEqual(chosen, {
    position: { kind: 'enqueuedTime', enqueuedTime: new Date('2026-11-21T10:30:00Z') },
    source: 'start_position',
  });
});
