import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import { SAMPLE_CATEGORIES, sampleResourceLogBody, sampleResourceLogRecords } from '../../../src/decode/samples.ts';
import { FIXTURE_CONTEXT, fixtureEvent } from '../../fixtures/decode/fixture-support.ts';

test('sample bodies for the demo generator: every category, current time by default, N records, varying by index', () => {
  const decode = createDecoder({ format: 'azure' });
  const before = Date.now();
  for (const category of SAMPLE_CATEGORIES) {
    const body = sampleResourceLogBody(category, { records: 3, index: 7 });
    const { records, stats } = decode([fixtureEvent(body)], FIXTURE_CONTEXT);
    assert.equal(records.length, 3, category);
    assert.equal(stats.timestampFallbacks, 0, category);
    assert.equal(stats.failedEvents, 0, category);
    const seconds = records[0]!.hrTime[0];
    assert.ok(seconds >= Math.floor(before / 1000) - 1 && seconds <= Date.now() / 1000 + 1, `${category} uses the current time`);
  }
  assert.notEqual(sampleResourceLogBody('firewall', { index: 1, time: new Date(0) }), sampleResourceLogBody('firewall', { index: 2, time: new Date(0) }));
});

test('Functions samples are single-quoted as Azure emits them; other categories are valid JSON', () => {
  assert.throws(() => JSON.parse(sampleResourceLogBody('functions')));
  for (const category of SAMPLE_CATEGORIES.filter((c) => c !== 'functions')) assert.doesNotThrow(() => JSON.parse(sampleResourceLogBody(category)), category);
  assert.equal(sampleResourceLogRecords('functions', { records: 2 }).length, 2);
  assert.throws(() => sampleResourceLogBody('nope' as never), /unknown sample category/);
});
