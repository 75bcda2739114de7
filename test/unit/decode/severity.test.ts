import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { parseSeverity } from '../../../src/decode/internal/severity.ts';

test('Azure level names map case-insensitively and keep their text', () => {
  const cases: [string, SeverityNumber][] = [
    ['Informational', SeverityNumber.INFO], ['Information', SeverityNumber.INFO], ['INFORMATIONAL', SeverityNumber.INFO],
    ['Verbose', SeverityNumber.DEBUG], ['verbose', SeverityNumber.DEBUG], ['Warning', SeverityNumber.WARN], ['warning', SeverityNumber.WARN],
    ['Error', SeverityNumber.ERROR], ['ERROR', SeverityNumber.ERROR], ['Critical', SeverityNumber.FATAL], ['critical', SeverityNumber.FATAL],
    ['Debug', SeverityNumber.DEBUG], ['Trace', SeverityNumber.TRACE], ['Warn', SeverityNumber.WARN], ['Fatal', SeverityNumber.FATAL],
  ];
  for (const [level, number] of cases) assert.deepEqual(parseSeverity(level), { number, text: level }, level);
});

test('numeric levels follow Windows event / ETW levels, as numbers or strings', () => {
  assert.deepEqual(parseSeverity(1), { number: SeverityNumber.FATAL, text: '1' });
  assert.deepEqual(parseSeverity(2), { number: SeverityNumber.ERROR, text: '2' });
  assert.deepEqual(parseSeverity(3), { number: SeverityNumber.WARN, text: '3' });
  assert.deepEqual(parseSeverity(4), { number: SeverityNumber.INFO, text: '4' });
  assert.deepEqual(parseSeverity('5'), { number: SeverityNumber.DEBUG, text: '5' });
  assert.deepEqual(parseSeverity(0), { number: SeverityNumber.UNSPECIFIED, text: '0' });
  assert.deepEqual(parseSeverity(42), { number: SeverityNumber.UNSPECIFIED, text: '42' });
});

test('unknown levels keep their text with an unspecified number; absent levels give nothing', () => {
  assert.deepEqual(parseSeverity('Chatty'), { number: SeverityNumber.UNSPECIFIED, text: 'Chatty' });
  assert.equal(parseSeverity(undefined), undefined);
  assert.equal(parseSeverity(''), undefined);
  assert.equal(parseSeverity({ level: 'Error' }), undefined);
});
