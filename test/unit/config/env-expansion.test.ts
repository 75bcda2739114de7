import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { expandEnv } from '../../../src/config/env-expansion.ts';

describe('expandEnv', () => {
  const env = { HUB: 'logs', N: '250', ON: 'true', EMPTY: '', ZERO: '0', YAMLISH: '{a: 1}\nb: 2' };

  test('expands ${env:VAR}, ${VAR} and defaults inside strings', () => {
    const r = expandEnv(
      { a: 'hub=${env:HUB}', b: '${HUB}-x', c: '${env:MISSING:-fallback}', d: '${env:EMPTY:-used}' },
      env,
    );
    assert.deepEqual(r.value, { a: 'hub=logs', b: 'logs-x', c: 'fallback', d: 'used' });
    assert.deepEqual(r.unset, []);
  });

  test('a value that is exactly one reference takes the scalar type it expands to', () => {
    const r = expandEnv({ n: '${env:N}', on: '${env:ON}', s: 'x${env:N}', z: '${ZERO}' }, env);
    assert.deepEqual(r.value, { n: 250, on: true, s: 'x250', z: 0 });
  });

  test('a variable cannot inject structure: YAML in the value stays one string', () => {
    const r = expandEnv({ a: '${env:YAMLISH}' }, env);
    assert.deepEqual(r.value, { a: '{a: 1}\nb: 2' });
  });

  test('walks lists and nested maps, never keys; $$ is a literal $', () => {
    const r = expandEnv({ '${HUB}': [{ x: '${env:HUB}' }, 'cost $$5', 3, null] }, env);
    assert.deepEqual(r.value, { '${HUB}': [{ x: 'logs' }, 'cost $5', 3, null] });
  });

  test(
    'an unset variable drops a key it fully defines, is "" inside text and lists, and is reported with its ' + 'path',
    () => {
      const r = expandEnv(
        { receivers: { r: { connection: '${env:EH_CONN}', group: 'g-${NOPE}', tags: ['${NOPE}'] } } },
        env,
      );
      assert.deepEqual(r.value, { receivers: { r: { group: 'g-', tags: [''] } } });
      assert.deepEqual(r.unset, [
        { name: 'EH_CONN', path: 'receivers.r.connection' },
        { name: 'NOPE', path: 'receivers.r.group' },
        { name: 'NOPE', path: 'receivers.r.tags.0' },
      ]);
    },
  );

  test('malformed references and unknown providers are errors with their path', () => {
    const r = expandEnv({ a: { b: '${env:1BAD}' }, c: '${http://example.com/x}' }, env);
    assert.equal(r.errors.length, 2);
    assert.match(r.errors[0]!, /^a\.b: /);
    assert.match(r.errors[1]!, /^c: unsupported config provider/);
  });
});
