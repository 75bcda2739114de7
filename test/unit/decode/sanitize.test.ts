import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildSanitizers,
  convertSingleQuotedStrings,
  escapeControlCharsInStrings,
} from '../../../src/decode/internal/sanitize.ts';
import { parseJson } from '../../../src/decode/internal/parse-json.ts';

describe('new_lines', () => {
  test('escapes raw newlines, tabs and other control characters inside strings only', () => {
    const broken = '{"message":"line one\nline two\ttabbed\u0001",\n"n": 1}';
    assert.throws(() => JSON.parse(broken));
    const fixed = escapeControlCharsInStrings(broken);
    assert.deepEqual(JSON.parse(fixed), { message: 'line one\nline two\ttabbed\u0001', n: 1 });
    assert.ok(fixed.includes(',\n"n"'), 'newlines between tokens are left alone');
  });

  test('respects escaped quotes and returns the same string when nothing changes', () => {
    const text = '{"a":"say \\"hi\\"","b":"x"}';
    assert.equal(escapeControlCharsInStrings(text), text);
    const pretty = '{\n\t"a": "x",\r\n  "b": 1\n}';
    assert.equal(escapeControlCharsInStrings(pretty), pretty, 'control characters between tokens only');
  });

  test('escapes every control character from U+0000 to U+001F inside a string, and nothing else', () => {
    for (let code = 0; code < 0x20; code++) {
      const raw = String.fromCharCode(code);
      assert.deepEqual(JSON.parse(escapeControlCharsInStrings(`{"m":"a${raw}b"}`)), { m: `a${raw}b` }, `U+${code}`);
    }
    assert.equal(escapeControlCharsInStrings('{"m":"a\u007fb é"}'), '{"m":"a\u007fb é"}');
  });
});

test('parsing leaves Error.stackTraceLimit as it was, whether the text parses, is repaired or fails', () => {
  const chain = buildSanitizers(['new_lines', 'single_quotes'], []);
  const before = Error.stackTraceLimit;
  Error.stackTraceLimit = 17;
  try {
    for (const text of ['{"a":1}', `{'a':1}`, '{"a":', '{"a":"\n"}']) {
      parseJson(text, chain, 1e6);
      assert.equal(Error.stackTraceLimit, 17, text);
    }
    // A sanitizer that throws (a user regex gone wrong) is skipped; the limit is still restored.
    parseJson(
      '{',
      [
        () => {
          throw new Error('boom');
        },
      ],
      1e6,
    );
    assert.equal(Error.stackTraceLimit, 17);
  } finally {
    Error.stackTraceLimit = before;
  }
});

describe('single_quotes', () => {
  test('repairs Azure Functions properties with unescaped inner apostrophes', () => {
    const broken =
      `{"records":[{"category":"FunctionAppLogs","properties":{'appName':'fn',` +
      `'message':'Executing 'Functions.Run' (Reason='New queue message detected on 'orders'.', Id=42)',` +
      `'levelId':2,'ok':true}}]}`;
    const value = JSON.parse(convertSingleQuotedStrings(broken));
    assert.deepEqual(value.records[0].properties, {
      appName: 'fn',
      message: "Executing 'Functions.Run' (Reason='New queue message detected on 'orders'.', Id=42)",
      levelId: 2,
      ok: true,
    });
  });

  test(
    "double quotes inside single-quoted strings are escaped; \\' becomes an apostrophe; double-quoted strings pass " +
      'through',
    () => {
      const value = JSON.parse(
        convertSingleQuotedStrings(`{'a':'say "hi"','b':'it\\'s','c':"it's fine",'d':['x', 'y']}`),
      );
      assert.deepEqual(value, { a: 'say "hi"', b: "it's", c: "it's fine", d: ['x', 'y'] });
    },
  );

  test('raw newlines inside single-quoted strings are escaped too', () => {
    assert.deepEqual(JSON.parse(convertSingleQuotedStrings("{'stack':'at A\nat B'}")), { stack: 'at A\nat B' });
  });
});

describe('sanitizer chain', () => {
  test('is tried only after JSON.parse fails, cumulatively, and reports whether it repaired', () => {
    const chain = buildSanitizers(['new_lines', 'single_quotes'], []);
    assert.deepEqual(parseJson('{"a":1}', chain, 1e6), { ok: true, value: { a: 1 }, sanitized: false });
    const both = `{'a':'x\ny'}`;
    assert.deepEqual(parseJson(both, chain, 1e6), { ok: true, value: { a: 'x\ny' }, sanitized: true });
  });

  test('user regex replacements run after the built-ins, with $1 references', () => {
    const chain = buildSanitizers(
      [],
      [
        { pattern: 'NaN', replacement: 'null' },
        { pattern: ',\\s*([}\\]])', replacement: '$1' },
      ],
    );
    const outcome = parseJson('{"a":NaN,"b":[1,2,],}', chain, 1e6);
    assert.deepEqual(outcome, { ok: true, value: { a: null, b: [1, 2] }, sanitized: true });
  });

  test('an invalid regex is refused at configuration time, naming the entry', () => {
    assert.throws(() => buildSanitizers([], [{ pattern: '([', replacement: '' }]), /sanitizers\[0\]\.pattern/);
    assert.throws(() => buildSanitizers(['tabs' as never], []), /unknown built-in sanitizer/);
  });

  test('still-invalid text fails with the original parse error; oversized text is not sanitized', () => {
    const chain = buildSanitizers(['new_lines', 'single_quotes'], []);
    const outcome = parseJson('{"a":', chain, 1e6);
    assert.equal(outcome.ok, false);
    assert.match(outcome.ok ? '' : outcome.message, /JSON/, 'the parse error`s message, though no stack was taken');
    assert.equal(parseJson(`{'a':1}`, chain, 3).ok, false, 'longer than maxSanitizeChars');
  });

  test('sanitizers are linear: a 4 MB pathological body completes (no timing assertion, just no blow-up)', () => {
    const chain = buildSanitizers(['new_lines', 'single_quotes'], []);
    const huge = `{'a':'${"x'".repeat(1_000_000)}'`;
    const outcome = parseJson(huge, chain, 8e6);
    assert.equal(typeof outcome.ok, 'boolean');
    // Worst case for the output: one replacement per two characters, 500,000 of them.
    const dense = `{'a':'${'"\n'.repeat(500_000)}'}`;
    const repaired = parseJson(dense, chain, 8e6);
    assert.ok(repaired.ok && (repaired.value as { a: string }).a.length === 1_000_000);
  });
});
