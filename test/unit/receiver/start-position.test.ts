import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseStartPosition, parseStartPosition } from '../../../src/receiver/start-position.ts';

const base = { startPosition: 'latest', partitionStart: {}, partition: '', offset: '' };
const now = new Date('2026-11-21T12:00:00Z');

test('a checkpoint always wins, resuming right after it', () => {
  const r = chooseStartPosition('0', { partitionId: '0', sequenceNumber: 41, offset: '4100' }, { ...base, startPosition: 'earliest', partitionStart: { '0': { sequence_number: 3, inclusive: true } } });
  assert.deepEqual(r, { position: { kind: 'sequenceNumber', sequenceNumber: 41, inclusive: false }, source: 'checkpoint' });
});

test('per-partition overrides, then the Go partition+offset, then start_position', () => {
  assert.deepEqual(chooseStartPosition('1', undefined, { ...base, partitionStart: { '1': { sequence_number: 7, inclusive: true } } }).position, { kind: 'sequenceNumber', sequenceNumber: 7, inclusive: true });
  assert.deepEqual(chooseStartPosition('1', undefined, { ...base, partitionStart: { '1': { offset: '500', inclusive: false } } }).position, { kind: 'offset', offset: '500', inclusive: false });
  assert.deepEqual(chooseStartPosition('2', undefined, { ...base, partition: '2', offset: '1234' }).position, { kind: 'offset', offset: '1234', inclusive: false });
  assert.deepEqual(chooseStartPosition('3', undefined, { ...base, partition: '2', offset: '1234' }).position, { kind: 'latest' });
});

test('start_position: latest, earliest, RFC 3339 and look-back durations', () => {
  assert.deepEqual(parseStartPosition('latest'), { kind: 'latest' });
  assert.deepEqual(parseStartPosition('EARLIEST'), { kind: 'earliest' });
  assert.deepEqual(parseStartPosition('2026-01-02T15:04:05Z'), { kind: 'enqueuedTime', enqueuedTime: new Date('2026-01-02T15:04:05Z') });
  assert.deepEqual(parseStartPosition('1h', now), { kind: 'enqueuedTime', enqueuedTime: new Date('2026-11-21T11:00:00Z') });
  assert.deepEqual(parseStartPosition('90m', now), { kind: 'enqueuedTime', enqueuedTime: new Date('2026-11-21T10:30:00Z') });
  assert.throws(() => parseStartPosition('yesterday'), /not latest, earliest/);
  assert.throws(() => parseStartPosition('2026-13-45T99:00:00Z'), /not latest, earliest/);
});
