/*
 * Traces parity suite: each case under test/fixtures/go-parity/traces/<case>/ is an Application Insights
 * export and what the Go receiver's traces translator makes of it (path and commit in source.json). The input
 * is decoded as one Event Hubs event by a decoder that feeds logs and traces; every difference in the spans
 * must be listed in traces/differences.yaml (and documented in docs/formats.md), or the case fails. A record
 * that does not become a span must still be there, as a log record.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import type { DecoderOptions } from '../../../src/decode/decoder.ts';
import { PARITY_CONTEXT, PARITY_ENQUEUED, PARITY_NOW_MS } from '../../helpers/go-parity.ts';
import {
  compareSpans,
  flattenActualSpans,
  loadTraceDifferences,
  loadTraceParityCases,
  traceDifferenceFor,
  type TraceDifference,
} from '../../helpers/go-parity-traces.ts';

const cases = loadTraceParityCases();
const differences = loadTraceDifferences();
const used = new Set<TraceDifference>();
const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v));

describe('Go parity: traces', () => {
  test('the corpus is there, and every case names its Go source', () => {
    assert.ok(cases.length >= 5);
    for (const c of cases) {
      assert.match(c.source.commit, /^[0-9a-f]{40}$/, `${c.name}: source.json commit`);
      assert.ok(c.source.input && c.source.expected, `${c.name}: source.json paths`);
    }
  });

  for (const c of cases) {
    test(c.name, () => {
      const decode = createDecoder({
        format: 'azure',
        signals: new Set(['logs', 'traces']),
        ...c.options,
        now: () => PARITY_NOW_MS,
      } as DecoderOptions);
      const result = decode(
        [{ body: c.input, sequenceNumber: 1, offset: '100', enqueuedTime: PARITY_ENQUEUED }],
        PARITY_CONTEXT,
      );
      const spans = result.spans ?? [];
      assert.equal(result.stats.failedEvents, 0);
      // Nothing lost: every record is a span or a log record.
      assert.equal(spans.length + result.records.length, c.inputRecords);
      const actual = flattenActualSpans(spans);
      const diffs = compareSpans(c.expected, actual);
      const unexplained = diffs.filter((d) => {
        const by = traceDifferenceFor(d, c.name, actual, differences);
        if (by) used.add(by);
        return !by;
      });
      if (unexplained.length > 0) {
        const lines = unexplained.map((d) => `  ${d.kind} ${d.path}: Go ${show(d.expected)}, ours ${show(d.actual)}`);
        assert.fail(
          `traces/${c.name}: ${unexplained.length} difference(s) not in differences.yaml\n${lines.join('\n')}`,
        );
      }
    });
  }

  test('every listed difference is justified, documented in docs/formats.md and still needed', () => {
    const docs = readFileSync(new URL('../../../docs/formats.md', import.meta.url), 'utf8');
    const ids = differences.map((d) => d.id);
    assert.deepEqual(
      ids.filter((id, i) => ids.indexOf(id) !== i),
      [],
      'difference ids are unique',
    );
    for (const d of differences) {
      assert.ok(d.id && d.why && d.path && d.case, `traces/differences.yaml entry ${JSON.stringify(d)}`);
      assert.ok(docs.includes(d.id), `docs/formats.md does not mention difference ${d.id}`);
      assert.ok(used.has(d), `difference ${d.id} (${d.case} ${d.path}) accepts nothing`);
    }
  });
});
