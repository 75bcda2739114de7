import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseResetTarget } from '../../../src/distribution/internal/reset-target.ts';
import { UsageError } from '../../../src/distribution/usage-error.ts';

describe('parseResetTarget', () => {
  test('earliest, latest, sequence numbers and RFC 3339 times', () => {
    assert.deepEqual(parseResetTarget('earliest'), { kind: 'earliest' });
    assert.deepEqual(parseResetTarget('latest'), { kind: 'latest' });
    assert.deepEqual(parseResetTarget('42'), { kind: 'sequenceNumber', sequenceNumber: 42 });
    assert.deepEqual(parseResetTarget('-1'), { kind: 'earliest' });
    assert.deepEqual(parseResetTarget('2026-01-02T03:04:05.5+01:00'), {
      kind: 'time',
      time: new Date('2026-01-02T02:04:05.500Z'),
    });
  });
  test('anything else is a usage error', () => {
    for (const bad of [undefined, '', 'yesterday', '-2', '2026-01-02', '2026-01-02T03:04:05'])
      assert.throws(() => parseResetTarget(bad), UsageError, String(bad));
  });
});
