/*
 * Parity suite: each case under test/fixtures/go-parity/<oracle>/<case>/ is a Go test input and the Go
 * output for it (opentelemetry-collector-contrib, path and commit in source.json). The input is decoded as
 * one Event Hubs event in the decoder mode matching its oracle; every difference must be listed in
 * differences.yaml (and documented in docs/formats.md), or the case fails.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import type { Decoder, DecoderOptions } from '../../../src/decode/decoder.ts';
import {
  acceptedBy,
  compareRecords,
  flattenActual,
  loadDifferences,
  loadParityCases,
  ORACLES,
  PARITY_CONTEXT,
  PARITY_ENQUEUED,
  PARITY_NOW_MS,
  type Difference,
  type Oracle,
} from '../../helpers/go-parity.ts';

/** GO_PARITY_ORACLE=azurelogs (comma-separated) runs only those oracles' cases. */
const only = process.env.GO_PARITY_ORACLE?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const cases = loadParityCases().filter((c) => !only || only.includes(c.oracle));
const differences = loadDifferences();
const used = new Set<Difference>();
const ran = new Set<Oracle>();

const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v));

function decoderFor(oracle: Oracle): Decoder | string {
  try {
    return createDecoder({ ...ORACLES[oracle], now: () => PARITY_NOW_MS } as DecoderOptions);
  } catch (error) {
    return (error as Error).message;
  }
}

describe('Go parity', () => {
  test('the corpus is there, and every case names its Go source', () => {
    assert.ok(cases.length > 0);
    for (const c of cases) {
      assert.match(c.source.commit, /^[0-9a-f]{40}$/, `${c.oracle}/${c.name}: source.json commit`);
      assert.ok(c.source.input && c.source.expected, `${c.oracle}/${c.name}: source.json paths`);
    }
  });

  for (const oracle of Object.keys(ORACLES) as Oracle[]) {
    const mine = cases.filter((c) => c.oracle === oracle);
    if (mine.length === 0) continue;
    const decoder = decoderFor(oracle);
    describe(oracle, () => {
      for (const c of mine) {
        const skip = typeof decoder === 'string' ? `decoder mode not available (${decoder})` : false;
        test(c.name, { skip }, () => {
          ran.add(oracle);
          const decode =
            Object.keys(c.options).length === 0
              ? (decoder as Decoder)
              : createDecoder({
                  ...ORACLES[oracle],
                  ...c.options,
                  now: () => PARITY_NOW_MS,
                } as DecoderOptions);
          const { records } = decode(
            [{ body: c.input, sequenceNumber: 1, offset: '100', enqueuedTime: PARITY_ENQUEUED }],
            PARITY_CONTEXT,
          );
          const diffs = compareRecords(c.expected, flattenActual(records));
          const unexplained = diffs.filter((d) => {
            const by = acceptedBy(d, c, differences);
            if (by) used.add(by);
            return !by;
          });
          if (unexplained.length > 0) {
            const lines = unexplained.map(
              (d) => `  ${d.kind} ${d.path}: Go ${show(d.expected)}, ours ${show(d.actual)}`,
            );
            assert.fail(
              `${oracle}/${c.name}: ${unexplained.length} difference(s) not in differences.yaml\n${lines.join('\n')}`,
            );
          }
        });
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
      assert.ok(d.id && d.why && d.path && d.oracle in ORACLES, `differences.yaml entry ${JSON.stringify(d)}`);
      assert.ok(docs.includes(d.id), `docs/formats.md does not mention difference ${d.id}`);
      // Entries of an oracle whose cases were skipped cannot be checked for use.
      if (ran.has(d.oracle))
        assert.ok(used.has(d), `difference ${d.id} (${d.oracle} ${d.case} ${d.path}) accepts nothing`);
    }
  });
});
