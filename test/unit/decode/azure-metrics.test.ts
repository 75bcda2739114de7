/*
 * The `azure` format feeding metrics (src/decode/internal/azure-metrics/): which records become metric points,
 * how, and what happens to the ones that look like metrics but cannot be decoded. Go parity for the mapping
 * itself is in go-parity-metrics.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import type { DecoderOptions } from '../../../src/decode/decoder.ts';
import { parseDurationNanos } from '../../../src/decode/internal/azure-metrics/metric-fields.ts';
import type { MetricPoint } from '../../../src/pipeline/signals.ts';
import { FIXTURE_CONTEXT, FIXTURE_OBSERVED_MS, fixtureEvent } from '../../fixtures/decode/fixture-support.ts';

const ID = '/SUBSCRIPTIONS/S/RESOURCEGROUPS/RG/PROVIDERS/MICROSOFT.NETWORK/LOADBALANCERS/LB';
const metric = (over: Record<string, unknown> = {}) => ({
  count: 2,
  total: 10,
  minimum: 4,
  maximum: 6,
  average: 5,
  resourceId: ID,
  time: '2025-07-14T12:45:00.0000000Z',
  metricName: 'ByteCount',
  timeGrain: 'PT1M',
  ...over,
});
const log = (over: Record<string, unknown> = {}) => ({
  time: '2025-07-14T12:45:01Z',
  resourceId: ID,
  category: 'AuditEvent',
  operationName: 'VaultGet',
  ...over,
});
const T = Date.parse('2025-07-14T12:45:00Z') / 1000;

function decoderFor(options: Partial<DecoderOptions> = {}) {
  return createDecoder({
    format: 'azure',
    signals: new Set(['logs', 'metrics']),
    now: () => FIXTURE_OBSERVED_MS,
    ...options,
  });
}
function decode(body: unknown, options: Partial<DecoderOptions> = {}) {
  return decoderFor(options)([fixtureEvent(JSON.stringify(body))], FIXTURE_CONTEXT);
}
const summary = (points: readonly MetricPoint[] = []) => points.map((p) => [p.name, p.value]);

describe('azure metrics: routing', () => {
  test('with metrics fed, metric records become points and log records stay logs, in one event', () => {
    const { records, metrics, stats } = decode({
      records: [log({ operationName: 'a' }), metric(), log({ operationName: 'b' })],
    });
    assert.deepEqual(
      records.map((r) => r.attributes['azure.operation.name']),
      ['a', 'b'],
    );
    assert.deepEqual(summary(metrics), [
      ['bytecount_total', 10],
      ['bytecount_count', 2],
      ['bytecount_minimum', 4],
      ['bytecount_maximum', 6],
      ['bytecount_average', 5],
    ]);
    assert.deepEqual(stats, { failedEvents: 0, sanitizedEvents: 0, timestampFallbacks: 0 });
  });

  test('without metrics in signals a metric record stays a log record, as before', () => {
    for (const signals of [undefined, new Set(['logs'] as const), new Set(['logs', 'traces'] as const)]) {
      const { records, metrics } = decode({ records: [metric()] }, { signals });
      assert.equal(metrics, undefined);
      assert.equal(records.length, 1);
      assert.equal(records[0]!.attributes['azure.metricName'], 'ByteCount');
      assert.equal(records[0]!.attributes['error.type'], undefined);
    }
  });

  test('a record with metricName and a category is a log record', () => {
    const { records, metrics, stats } = decode({
      records: [log({ metricName: 'Percentage CPU', timeGrain: 'PT1M', total: 1 })],
    });
    assert.equal(metrics, undefined);
    assert.equal(records.length, 1);
    assert.equal(records[0]!.attributes['error.type'], undefined);
    assert.equal(stats.refusedRecords, undefined);
  });

  test('only the azure format routes: json and raw events stay whole log records', () => {
    for (const format of ['json', 'raw'] as const) {
      const { records, metrics } = decode({ records: [metric()] }, { format });
      assert.equal(metrics, undefined);
      assert.equal(records.length, 1);
    }
  });

  test('apply_semantic_conventions changes the log records only; metric points are the same', () => {
    const { records, metrics } = decode({ records: [metric(), log()] }, { applySemanticConventions: true });
    assert.equal(records.length, 1);
    assert.equal(records[0]!.resource.attributes['cloud.resource_id'], ID);
    assert.equal(metrics?.length, 5);
    assert.equal(metrics?.[0]?.resource.attributes['azure.resource.id'], ID);
  });

  test('when an event goes raw, the points of its earlier records are rolled back with its log records', () => {
    const deep = { a: { b: { c: { d: 1 } } } };
    const d = decoderFor({ maxNestingDepth: 2 });
    const good = fixtureEvent(JSON.stringify({ records: [metric({ metricName: 'kept' })] }));
    const bad = fixtureEvent(JSON.stringify({ records: [metric(), log({ properties: deep })] }));
    const { records, metrics, stats } = d([good, bad], FIXTURE_CONTEXT);
    assert.equal(records.length, 1);
    assert.equal(records[0]!.attributes['error.type'], 'nesting_too_deep');
    assert.match(String(records[0]!.body), /ByteCount/);
    assert.deepEqual(
      metrics?.map((p) => p.name),
      ['kept_total', 'kept_count', 'kept_minimum', 'kept_maximum', 'kept_average'],
    );
    assert.equal(stats.failedEvents, 1);
  });
});

describe('azure metrics: mapping', () => {
  test('names: spaces become underscores, all lower case, aggregation suffix', () => {
    const { metrics } = decode({
      records: [metric({ metricName: 'Percentage CPU', minimum: undefined, maximum: undefined, average: undefined })],
    });
    assert.deepEqual(
      metrics?.map((p) => p.name),
      ['percentage_cpu_total', 'percentage_cpu_count'],
    );
  });

  test('points are gauges at time, starting one time grain earlier, with no unit, description or attributes', () => {
    const [p] = decode({ records: [metric()] }).metrics!;
    assert.equal(p!.kind, 'gauge');
    assert.deepEqual(p!.time, [T, 0]);
    assert.deepEqual(p!.startTime, [T - 60, 0]);
    assert.equal(p!.unit, '');
    assert.equal(p!.description, '');
    assert.deepEqual(p!.attributes, {});
    assert.equal(p!.scope.name, '', 'an empty scope, as the Go receiver writes');
  });

  test('other time grains set the start accordingly (Go drops every grain but PT1M)', () => {
    const starts = ['PT5M', 'PT1H', 'P1D', 'PT30S', 'P1W'].map(
      (timeGrain) => decode({ records: [metric({ timeGrain })] }).metrics![0]!.startTime,
    );
    assert.deepEqual(starts, [
      [T - 300, 0],
      [T - 3600, 0],
      [T - 86_400, 0],
      [T - 30, 0],
      [T - 604_800, 0],
    ]);
  });

  test('a start time before the epoch is left out rather than wrapped', () => {
    const [p] = decode({ records: [metric({ time: '1970-01-01T00:00:30Z' })] }).metrics!;
    assert.deepEqual(p!.time, [30, 0]);
    assert.equal(p!.startTime, undefined);
  });

  test('an aggregation absent from the record is left out; one present as 0 is kept', () => {
    const { metrics } = decode({
      records: [
        metric({ metricName: 'lb', minimum: undefined, maximum: undefined, average: undefined }),
        metric({ metricName: 'zeros', minimum: 0, maximum: null }),
      ],
    });
    assert.deepEqual(summary(metrics), [
      ['lb_total', 10],
      ['lb_count', 2],
      ['zeros_total', 10],
      ['zeros_count', 2],
      ['zeros_minimum', 0],
      ['zeros_average', 5],
    ]);
  });

  test('metric_aggregation average: one gauge, total / count, named after the metric alone', () => {
    const { metrics } = decode(
      { records: [metric({ total: 12292.1382, count: 23, average: 534.440791304348 })] },
      { metricAggregation: 'average' },
    );
    assert.deepEqual(summary(metrics), [['bytecount', 534.4407913043478]]);
  });

  test('metric_aggregation average without total or count falls back to the average field', () => {
    const { metrics } = decode(
      { records: [metric({ total: undefined, average: 7.5 })] },
      { metricAggregation: 'average' },
    );
    assert.deepEqual(summary(metrics), [['bytecount', 7.5]]);
  });

  test('metric_aggregation average with count 0 gives NaN, as Go does', () => {
    const { metrics } = decode({ records: [metric({ total: 0, count: 0 })] }, { metricAggregation: 'average' });
    assert.ok(Number.isNaN(metrics![0]!.value));
  });

  test('field names match case-insensitively, as Go decodes them (detection needs metricName exactly)', () => {
    const { metrics } = decode({
      records: [{ metricName: 'm', Time: '2025-07-14T12:45:00Z', TimeGrain: 'PT1M', Total: 3, ResourceID: ID }],
    });
    assert.deepEqual(summary(metrics), [['m_total', 3]]);
    assert.equal(metrics![0]!.resource.attributes['azure.resource.id'], ID);
  });

  test('an integer beyond 2^53 is read as the nearest double', () => {
    const body = JSON.stringify({ records: [metric({ total: 1 })] }).replace(
      '"total":1',
      '"total":12345678901234567890',
    );
    const { metrics } = decoderFor()([fixtureEvent(body)], FIXTURE_CONTEXT);
    assert.equal(metrics![0]!.value, Number('12345678901234567890'));
  });

  test('time_formats.metrics layouts are tried first, then the built-in formats', () => {
    const { metrics } = decode(
      { records: [metric({ time: '14.07.2025 12:45' }), metric({ time: '2025-07-14T12:45:00Z' })] },
      {
        metricTimeFormats: ['02.01.2006 15:04'],
      },
    );
    assert.deepEqual(
      metrics?.filter((p) => p.name.endsWith('_total')).map((p) => p.time),
      [
        [T, 0],
        [T, 0],
      ],
    );
  });

  test('an invalid metricTimeFormats layout is refused when the decoder is built', () => {
    assert.throws(() => decoderFor({ metricTimeFormats: ['no date here'] }), /metricTimeFormats\[0\]/);
  });
});

describe('azure metrics: resources', () => {
  test('one shared Resource per resource id, across events and decode calls; none without an id', () => {
    const d = decoderFor();
    const first = d(
      [
        fixtureEvent(
          JSON.stringify({ records: [metric(), metric({ resourceId: '/other' }), metric({ resourceId: undefined })] }),
        ),
      ],
      FIXTURE_CONTEXT,
    ).metrics!;
    const second = d([fixtureEvent(JSON.stringify({ records: [metric()] }))], FIXTURE_CONTEXT).metrics!;
    const [a, b, c] = [first[0]!, first[5]!, first[10]!];
    assert.equal(a.resource, second[0]!.resource);
    assert.equal(a.resource, first[4]!.resource);
    assert.notEqual(a.resource, b.resource);
    assert.equal(b.resource.attributes['azure.resource.id'], '/other');
    assert.equal(c.resource.attributes['azure.resource.id'], undefined);
    assert.deepEqual(Object.keys(a.resource.attributes), [
      'telemetry.sdk.name',
      'telemetry.sdk.language',
      'telemetry.sdk.version',
      'cloud.provider',
      'azure.resource.id',
    ]);
  });

  test('AppMetrics: the application resource, shared between records of one instance', () => {
    const app = (over: Record<string, unknown>) => ({
      Type: 'AppMetrics',
      time: '2025-07-14T12:45:00Z',
      resourceId: ID,
      AppRoleName: 'api',
      AppRoleInstance: 'i1',
      Name: 'queue length',
      Sum: 6,
      ItemCount: 3,
      Min: 1,
      Max: 3,
      Properties: { team: 'core', shard: 2 },
      ...over,
    });
    const { metrics } = decode({ records: [app({}), app({ Name: 'other' }), app({ AppRoleInstance: 'i2' })] });
    assert.deepEqual(
      metrics?.slice(0, 4).map((p) => [p.name, p.value]),
      [
        ['queue_length_total', 6],
        ['queue_length_count', 3],
        ['queue_length_minimum', 1],
        ['queue_length_maximum', 3],
      ],
    );
    assert.equal(metrics![0]!.resource, metrics![4]!.resource);
    assert.notEqual(metrics![0]!.resource, metrics![8]!.resource);
    assert.deepEqual(
      { ...metrics![0]!.resource.attributes },
      {
        'telemetry.sdk.version': '',
        'cloud.provider': 'azure',
        'cloud.region': '',
        'service.instance.id': 'i1',
        'service.name': 'api',
        'service.version': '',
        'os.name': '',
        'azure.resource.id': ID,
        team: 'core',
        shard: '2',
      },
    );
    const average = decode({ records: [app({})] }, { metricAggregation: 'average' }).metrics;
    assert.deepEqual(summary(average), [['queue_length', 2]]);
  });
});

describe('azure metrics: a metric record that cannot be decoded stays a log record, flagged and counted', () => {
  const cases: [string, Record<string, unknown>, RegExp, Partial<DecoderOptions>?][] = [
    ['no time', metric({ time: undefined }), /time is missing/],
    ['a time that does not parse', metric({ time: 'yesterday' }), /time "yesterday" is not a timestamp/],
    ['no time grain', metric({ timeGrain: undefined }), /timeGrain is missing/],
    ['a time grain in months', metric({ timeGrain: 'P1M' }), /timeGrain "P1M" is not an ISO 8601 duration/],
    ['a value that is not a number', metric({ count: 'many' }), /count is not a number/],
    [
      'no aggregation at all',
      metric({ count: undefined, total: undefined, minimum: undefined, maximum: undefined, average: undefined }),
      /no total/,
    ],
    ['an empty metric name', metric({ metricName: '' }), /metricName is not a non-empty string/],
    ['a resource id that is not a string', metric({ resourceId: 7 }), /resourceId is not a string/],
    [
      'average mode with no total, count or average',
      metric({ total: undefined, average: undefined }),
      /needs total and count/,
      { metricAggregation: 'average' },
    ],
    ['AppMetrics with no Name', { Type: 'AppMetrics', time: '2025-07-14T12:45:00Z', Sum: 1 }, /Name is missing/],
    [
      'AppMetrics with Properties that are not an object',
      { Type: 'AppMetrics', time: '2025-07-14T12:45:00Z', Name: 'n', Sum: 1, Properties: 'x' },
      /Properties is not an object/,
    ],
  ];
  for (const [name, bad, message, options] of cases) {
    test(name, () => {
      const { records, metrics, stats } = decode({ records: [metric({ metricName: 'ok' }), bad, log()] }, options);
      assert.equal(
        metrics?.every((p) => p.name.startsWith('ok')),
        true,
      );
      assert.equal(records.length, 2);
      assert.equal(records[0]!.attributes['error.type'], 'invalid_metric_record');
      assert.match(String(records[0]!.attributes['error.message']), message);
      assert.equal(records[1]!.attributes['error.type'], undefined);
      assert.equal(stats.refusedRecords, 1);
      assert.equal(stats.failedEvents, 0);
    });
  }

  test('the count adds up over events and is not kept for an event that went raw', () => {
    const d = decoderFor({ maxNestingDepth: 2 });
    const bad = metric({ time: 'never' });
    const raw = { records: [bad, log({ properties: { a: { b: { c: 1 } } } })] };
    const { stats } = d(
      [fixtureEvent(JSON.stringify({ records: [bad, bad] })), fixtureEvent(JSON.stringify(raw))],
      FIXTURE_CONTEXT,
    );
    assert.equal(stats.refusedRecords, 2);
    assert.equal(stats.failedEvents, 1);
  });
});

describe('azure metrics: time grains', () => {
  test('ISO 8601 durations of weeks, days, hours, minutes and seconds; nothing else', () => {
    const s = 1e9;
    assert.deepEqual(
      ['PT1M', 'PT5M', 'PT1H', 'P1D', 'P1W', 'P1DT12H', 'PT1H30M', 'PT0.5S', 'PT1,5S'].map(parseDurationNanos),
      [60 * s, 300 * s, 3600 * s, 86_400 * s, 604_800 * s, 129_600 * s, 5400 * s, 0.5 * s, 1.5 * s],
    );
    for (const bad of ['', 'P', 'PT', 'P1DT', 'PT0M', 'P1Y', 'P1M', 'PT1m', '1M', 'PT-1M', 'P1W1D']) {
      assert.equal(parseDurationNanos(bad), undefined, bad);
    }
  });
});
