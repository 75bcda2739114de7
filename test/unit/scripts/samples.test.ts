import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import {
  SAMPLE_CATEGORIES,
  sampleMetricBody,
  sampleMetricRecords,
  sampleResourceLogBody,
  sampleResourceLogRecords,
  sampleTraceBody,
  sampleTraceRecords,
} from '../../../scripts/local/samples.ts';
import { FIXTURE_CONTEXT, fixtureEvent } from '../../fixtures/decode/fixture-support.ts';

test(
  'sample bodies for the demo generator: every category, current time by default, N records, varying by ' + 'index',
  () => {
    const decode = createDecoder({ format: 'azure' });
    const before = Date.now();
    for (const category of SAMPLE_CATEGORIES) {
      const body = sampleResourceLogBody(category, { records: 3, index: 7 });
      const { records, stats } = decode([fixtureEvent(body)], FIXTURE_CONTEXT);
      assert.equal(records.length, 3, category);
      assert.equal(stats.timestampFallbacks, 0, category);
      assert.equal(stats.failedEvents, 0, category);
      const seconds = records[0]!.hrTime[0];
      assert.ok(
        seconds >= Math.floor(before / 1000) - 1 && seconds <= Date.now() / 1000 + 1,
        `${category} uses the current time`,
      );
    }
    assert.notEqual(
      sampleResourceLogBody('firewall', { index: 1, time: new Date(0) }),
      sampleResourceLogBody('firewall', { index: 2, time: new Date(0) }),
    );
  },
);

test('Functions samples are single-quoted as Azure emits them; other categories are valid JSON', () => {
  assert.throws(() => JSON.parse(sampleResourceLogBody('functions')));
  for (const category of SAMPLE_CATEGORIES.filter((c) => c !== 'functions'))
    assert.doesNotThrow(() => JSON.parse(sampleResourceLogBody(category)), category);
  assert.equal(sampleResourceLogRecords('functions', { records: 2 }).length, 2);
  assert.throws(() => sampleResourceLogBody('nope' as never), /unknown sample category/);
});

test('metric samples: AllMetrics records of one resource per body, PT1M, consistent aggregations', () => {
  const time = new Date('2026-05-14T09:30:42.123Z');
  const seen = new Set<string>();
  for (let index = 0; index < 10; index++) {
    const records = sampleMetricRecords({ time, index, records: 6 });
    assert.equal(records.length, 6);
    assert.equal(new Set(records.map((r) => r.resourceId)).size, 1, 'one resource per body');
    seen.add(records[0]!.resourceId as string);
    for (const r of records) {
      const fields = [
        'average',
        'count',
        'maximum',
        'metricName',
        'minimum',
        'resourceId',
        'time',
        'timeGrain',
        'total',
      ];
      assert.deepEqual(Object.keys(r).sort(), fields);
      assert.equal(r.timeGrain, 'PT1M');
      assert.match(r.time as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.0000000Z$/);
      const [count, total, min, max, avg] = [r.count, r.total, r.minimum, r.maximum, r.average] as number[];
      assert.ok(Number.isInteger(count) && count! >= 1, `count ${count}`);
      assert.ok(min! <= avg! + 1e-9 && avg! <= max! + 1e-9, `${r.metricName}: ${min} <= ${avg} <= ${max}`);
      const error = Math.abs(avg! * count! - total!);
      assert.ok(error < 1e-3 * Math.max(1, total!), `${r.metricName}: average = total / count`);
    }
    // Four metrics per resource: records 4 and 5 are the first two metrics again, a minute earlier.
    assert.equal(records[4]!.metricName, records[0]!.metricName);
    assert.equal(records[0]!.time, '2026-05-14T09:30:00.0000000Z');
    assert.equal(records[4]!.time, '2026-05-14T09:29:00.0000000Z');
  }
  assert.equal(seen.size, 5, 'the index cycles through the resources');
  const vm = sampleMetricRecords({ time, index: 0, records: 4 });
  assert.ok(
    vm.some((r) => / /.test(r.metricName as string)),
    'VM metric names have spaces',
  );
  const body = JSON.parse(sampleMetricBody({ time, index: 3, records: 2 }));
  assert.deepEqual(body, { records: sampleMetricRecords({ time, index: 3, records: 2 }) });
});

test('trace samples: one operation per body, a request then its dependencies, W3C ids as hex', () => {
  const time = new Date('2026-05-14T09:30:42.123Z');
  const ids = new Set<string>();
  for (let index = 0; index < 10; index++) {
    const [request, ...deps] = sampleTraceRecords({ time, index, records: 4 });
    assert.equal(request!.Type, 'AppRequests');
    assert.equal(deps.length, 3);
    assert.match(request!.OperationId as string, /^[0-9a-f]{32}$/);
    assert.match(request!.Id as string, /^[0-9a-f]{16}$/);
    assert.match(request!.ParentId as string, index % 3 === 0 ? /^[0-9a-f]{32}$/ : /^[0-9a-f]{16}$/);
    assert.equal(request!.time, `2026-05-14T09:30:42.123${String(index).padStart(4, '0')}Z`);
    assert.equal(
      (request!.Properties as Record<string, string>)['HTTP Method'],
      (request!.Name as string).split(' ')[0],
    );
    assert.equal(request!.Success, index % 5 !== 4);
    for (const dep of deps) {
      assert.equal(dep.Type, 'AppDependencies');
      assert.equal(dep.OperationId, request!.OperationId);
      assert.equal(dep.ParentId, request!.Id);
      assert.match(dep.Id as string, /^[0-9a-f]{16}$/);
      assert.ok(Date.parse(dep.time as string) >= Date.parse(request!.time as string));
      for (const v of Object.values(dep.Properties as object)) assert.equal(typeof v, 'string', 'Properties: strings');
    }
    for (const r of [request!, ...deps]) ids.add(r.Id as string);
  }
  assert.equal(ids.size, 40, 'span ids differ across operations');
  const again = () => sampleTraceRecords({ time, index: 7, records: 3 });
  assert.deepEqual(again(), again(), 'deterministic');
  assert.equal(JSON.parse(sampleTraceBody({ time, index: 2, records: 2 })).records.length, 2);
});

test('metric and trace samples stay log records when only logs are fed, and decode without failures', () => {
  const decode = createDecoder({ format: 'azure' });
  const events = [fixtureEvent(sampleMetricBody({ records: 3 })), fixtureEvent(sampleTraceBody({ records: 3 }))];
  const { records, stats } = decode(events, FIXTURE_CONTEXT);
  assert.equal(records.length, 6);
  assert.equal(stats.failedEvents, 0);
  assert.equal(stats.timestampFallbacks, 0);
});

test('metric and trace samples become metric points and spans when the decoder feeds every signal', () => {
  const decode = createDecoder({ format: 'azure', signals: new Set(['logs', 'metrics', 'traces'] as const) });
  const time = new Date('2026-05-14T09:30:42.123Z');
  for (let index = 0; index < 10; index++) {
    const metricRecords = sampleMetricRecords({ time, index, records: 4 });
    const traceRecords = sampleTraceRecords({ time, index, records: 4 });
    const events = [metricRecords, traceRecords].map((records) => fixtureEvent(JSON.stringify({ records })));
    const result = decode(events, FIXTURE_CONTEXT);
    assert.equal(result.records.length, 0, `index ${index}: no record stays a log record`);
    assert.equal(result.stats.refusedRecords ?? 0, 0);
    assert.equal(result.metrics?.length, 4 * 5, 'five gauges per metric record');
    const names = new Set(result.metrics!.map((p) => p.name));
    for (const r of metricRecords) {
      const base = (r.metricName as string).replace(/ /g, '_').toLowerCase();
      for (const agg of ['total', 'count', 'minimum', 'maximum', 'average']) {
        assert.ok(names.has(`${base}_${agg}`), `${base}_${agg}`);
      }
    }
    assert.deepEqual(
      result.spans?.map((s) => s.spanId),
      traceRecords.map((r) => r.Id),
    );
    assert.ok(result.spans!.every((s) => s.traceId === traceRecords[0]!.OperationId));
  }
});
