import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePropertiesString, repairSingleQuotedJson } from '../../../src/decode/internal/properties-string.ts';

describe('properties that arrive as a JSON string', () => {
  test('a JSON object string gives the object', () => {
    assert.deepEqual(parsePropertiesString('{"CsMethod":"GET","ScStatus":"200"}'), {
      CsMethod: 'GET',
      ScStatus: '200',
    });
    assert.deepEqual(parsePropertiesString('  {"a":1}'), { a: 1 });
  });

  test('single-quoted pseudo-JSON (Function App logs) is repaired, escaped quotes included', () => {
    const text = "{'appName':'fn','level':'Information','message':'it\\'s \"done\"'}";
    // Like Go, the backslash before an apostrophe survives (Go repairs the escaped source text, where it is doubled).
    assert.deepEqual(parsePropertiesString(text), { appName: 'fn', level: 'Information', message: 'it\\\'s "done"' });
  });

  test('plain text, arrays, numbers and hopeless JSON give undefined', () => {
    for (const text of ['hello', '[1,2]', '42', '{not json', '', "{'a':}"])
      assert.equal(parsePropertiesString(text), undefined, text);
  });

  test('the repair follows the Go extension byte for byte on its documented example', () => {
    assert.equal(repairSingleQuotedJson("{'key':'value'}"), '{"key":"value"}');
    assert.equal(repairSingleQuotedJson(''), '');
    assert.equal(repairSingleQuotedJson("{'a':'say \"hi\"'}"), '{"a":"say \\"hi\\""}');
  });
});
