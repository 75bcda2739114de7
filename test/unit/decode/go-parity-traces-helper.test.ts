import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compareSpans,
  traceDifferenceFor,
  type FlatSpan,
  type TraceDifference,
} from '../../helpers/go-parity-traces.ts';

const span = (over: Partial<FlatSpan> = {}): FlatSpan => ({
  resource: { 'service.name': { s: 'web' } },
  scopeName: '',
  traceId: 'a'.repeat(32),
  spanId: 'b'.repeat(16),
  parentSpanId: '',
  name: 'GET /',
  kind: 2,
  startTimeUnixNano: '1',
  endTimeUnixNano: '2',
  attributes: { 'url.full': { s: 'https://h/' }, size: { d: 0 } },
  statusCode: 1,
  statusMessage: '',
  ...over,
});

describe('Go parity helper: traces', () => {
  test('identical spans give no differences', () => {
    assert.deepEqual(compareSpans([span()], [span()]), []);
  });

  test('every kind of difference is reported with its path', () => {
    const actual = span({
      name: 'other',
      resource: {},
      attributes: { 'url.full': { s: 'x' }, size: { i: '0' }, extra: { s: 'y' } },
    });
    const diffs = compareSpans([span(), span()], [actual]);
    assert.deepEqual(
      diffs.map((d) => `${d.kind} ${d.path}`),
      [
        'count spans.length',
        'missing spans[0].resource["service.name"]',
        'value spans[0].name',
        'value spans[0].attributes["url.full"]',
        'int-vs-double spans[0].attributes["size"]',
        'extra spans[0].attributes["extra"]',
      ],
    );
  });

  test('a difference entry applies only to its case, path, kind and span kinds', () => {
    const entry: TraceDifference = {
      id: 't',
      case: 'c',
      path: 'spans[*].*TimeUnixNano',
      kind: 'value',
      spanKinds: [2],
      why: 'w',
    };
    const diff = { path: 'spans[0].startTimeUnixNano', kind: 'value' as const };
    assert.equal(traceDifferenceFor(diff, 'c', [span()], [entry]), entry);
    assert.equal(traceDifferenceFor(diff, 'other', [span()], [entry]), undefined);
    assert.equal(traceDifferenceFor(diff, 'c', [span({ kind: 3 })], [entry]), undefined);
    assert.equal(traceDifferenceFor({ ...diff, kind: 'missing' }, 'c', [span()], [entry]), undefined);
    assert.equal(traceDifferenceFor({ path: 'spans[0].name', kind: 'value' }, 'c', [span()], [entry]), undefined);
  });
});
