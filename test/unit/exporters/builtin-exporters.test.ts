import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { builtinExporterFactories } from '../../../src/exporters/index.ts';

describe('builtinExporterFactories', () => {
  test('debug, file, otlphttp and otlp, each type once', () => {
    assert.deepEqual(builtinExporterFactories.map((f) => f.type).sort(), ['debug', 'file', 'otlp', 'otlphttp']);
  });

  for (const factory of builtinExporterFactories) {
    test(`${factory.type}: createDefaultConfig returns a fresh object; the schema rejects unknown keys`, () => {
      const a = factory.createDefaultConfig();
      const b = factory.createDefaultConfig();
      assert.notEqual(a, b);
      assert.deepEqual(a, b);
      const withUnknown = { ...(a as object), no_such_key: 1 };
      assert.equal(factory.configSchema.safeParse(withUnknown).success, false);
    });
  }
});
