import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { weakParse } from '../../../src/config/weak-parse.ts';

const schema = z.strictObject({
  partition: z.string(),
  n: z.number(),
  on: z.boolean(),
  nested: z.strictObject({ id: z.string() }).optional(),
});

test('numbers and booleans become strings where a string is expected, and back', () => {
  const r = weakParse(schema, { partition: 0, n: '42', on: 'true', nested: { id: 7 } });
  assert.ok(r.success);
  assert.deepEqual(r.data, { partition: '0', n: 42, on: true, nested: { id: '7' } });
});

test('values that cannot be coerced are still reported, and the input is not modified', () => {
  const input = { partition: { a: 1 }, n: 'many', on: 'yes' };
  const r = weakParse(schema, input);
  assert.equal(r.success, false);
  assert.deepEqual(r.error!.issues.map((i) => i.path.join('.')).sort(), ['n', 'on', 'partition']);
  assert.deepEqual(input, { partition: { a: 1 }, n: 'many', on: 'yes' });
});
