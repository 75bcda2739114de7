import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toEventPosition } from '../../../../src/backends/polling/to-event-position.ts';

test('maps each start position to the SDK EventPosition', () => {
  assert.deepEqual(toEventPosition({ kind: 'earliest' }), { offset: '-1' });
  assert.deepEqual(toEventPosition({ kind: 'latest' }), { offset: '@latest' });
  assert.deepEqual(toEventPosition({ kind: 'sequenceNumber', sequenceNumber: 5, inclusive: true }), {
    sequenceNumber: 5,
    isInclusive: true,
  });
  assert.deepEqual(toEventPosition({ kind: 'offset', offset: '10', inclusive: false }), {
    offset: '10',
    isInclusive: false,
  });
  const t = new Date(1000);
  assert.deepEqual(toEventPosition({ kind: 'enqueuedTime', enqueuedTime: t }), { enqueuedOn: t });
});
