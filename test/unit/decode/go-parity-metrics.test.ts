/*
 * Metrics parity suite: each case under test/fixtures/go-parity/metrics/<case>/ is a Go test input of the
 * azureeventhubreceiver metrics unmarshaler and the Go output for it (path and commit in source.json). The
 * input is decoded as one Event Hubs event by the `azure` format feeding metrics; every difference must be
 * listed in metrics/differences.yaml (and documented in docs/formats.md, Metrics), or the case fails.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import type { DecoderOptions } from '../../../src/decode/decoder.ts';
import { INSTRUMENTATION_SCOPE } from '../../../src/decode/internal/scope.ts';
import { PARITY_CONTEXT, PARITY_ENQUEUED, PARITY_NOW_MS } from '../../helpers/go-parity.ts';
import {
  comparePoints,
  flattenActualMetrics,
  loadMetricCases,
  loadMetricDifferences,
  metricDiffAcceptedBy,
  type MetricDifference,
} from '../../helpers/go-parity-metrics.ts';

const cases = loadMetricCases();
const differences = loadMetricDifferences();
const used = new Set<MetricDifference>();
const version = INSTRUMENTATION_SCOPE.version ?? '';
const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v));

describe('Go parity: metrics', () => {
  test('the corpus is there, and every case names its Go source', () => {
    assert.ok(cases.length >= 3);
    for (const c of cases) {
      assert.match(c.source.commit, /^[0-9a-f]{40}$/, `${c.name}: source.json commit`);
      assert.ok(c.source.input && c.source.expected, `${c.name}: source.json paths`);
      assert.ok(c.expected.length > 0, `${c.name}: expected.yaml has points`);
    }
  });

  for (const c of cases) {
    test(c.name, () => {
      const decode = createDecoder({
        format: 'azure',
        signals: new Set(['logs', 'metrics']),
        ...c.options,
        now: () => PARITY_NOW_MS,
      } as DecoderOptions);
      const {
        records,
        metrics = [],
        stats,
      } = decode([{ body: c.input, sequenceNumber: 1, offset: '100', enqueuedTime: PARITY_ENQUEUED }], PARITY_CONTEXT);
      // Every record of these inputs is a metric: nothing may be left over as a log record.
      assert.deepEqual(
        records.map((r) => r.attributes['error.message']),
        [],
      );
      assert.equal(stats.failedEvents, 0);
      const diffs = comparePoints(c.expected, flattenActualMetrics(metrics));
      const unexplained = diffs.filter((d) => {
        const by = metricDiffAcceptedBy(d, c.name, differences, version);
        if (by) used.add(by);
        return !by;
      });
      if (unexplained.length > 0) {
        const lines = unexplained.map((d) => `  ${d.kind} ${d.path}: Go ${show(d.expected)}, ours ${show(d.actual)}`);
        assert.fail(
          `metrics/${c.name}: ${unexplained.length} difference(s) not in differences.yaml\n${lines.join('\n')}`,
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
      assert.ok(d.id && d.why && d.path && d.case, `differences.yaml entry ${JSON.stringify(d)}`);
      assert.ok(docs.includes(d.id), `docs/formats.md does not mention difference ${d.id}`);
      assert.ok(used.has(d), `difference ${d.id} (${d.case} ${d.path}) accepts nothing`);
    }
  });
});
