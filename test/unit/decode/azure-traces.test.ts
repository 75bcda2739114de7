import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import type { DecoderOptions } from '../../../src/decode/decoder.ts';
import type { Signal } from '../../../src/pipeline/signals.ts';
import { goUrl } from '../../../src/decode/internal/azure-traces/span-attributes.ts';
import { parseGoUrl } from '../../../src/decode/internal/go-url.ts';
import { FIXTURE_CONTEXT, FIXTURE_OBSERVED_MS, fixtureEvent } from '../../fixtures/decode/fixture-support.ts';
import { INSTRUMENTATION_SCOPE } from '../../../src/decode/internal/scope.ts';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const RESOURCE_ID = '/SUBSCRIPTIONS/S/RESOURCEGROUPS/RG/PROVIDERS/MICROSOFT.INSIGHTS/COMPONENTS/APPI1';

const decoderFor = (signals: Signal[], extra: Partial<DecoderOptions> = {}) =>
  createDecoder({ format: 'azure', signals: new Set(signals), now: () => FIXTURE_OBSERVED_MS, ...extra });
const traces = decoderFor(['logs', 'traces']);
const decode = (body: unknown, d = traces) => d([fixtureEvent(JSON.stringify(body))], FIXTURE_CONTEXT);

const request = (over: Record<string, unknown> = {}) => ({
  time: '2024-05-14T09:30:00.5Z',
  resourceId: RESOURCE_ID,
  Type: 'AppRequests',
  AppRoleName: 'web',
  OperationId: TRACE_ID,
  ParentId: '00f067aa0ba902b7',
  Id: '53995c3f42cd8ad8',
  Name: 'GET /orders',
  Url: 'https://web.example.com/orders',
  Success: true,
  ResultCode: '200',
  DurationMs: 12.5,
  Properties: { 'HTTP Method': 'GET' },
  ...over,
});
const dependency = (over: Record<string, unknown> = {}) => ({
  ...request(),
  Type: 'AppDependencies',
  Id: '1476270bb7b15343',
  ParentId: '53995c3f42cd8ad8',
  Name: 'GET /stock',
  Target: 'https://stock.example.com:8443',
  DependencyType: 'HTTP',
  Url: undefined,
  ...over,
});
const auditLog = {
  time: '2024-05-14T09:30:00Z',
  resourceId: '/subscriptions/s/rg/vault',
  category: 'AuditEvent',
  operationName: 'VaultGet',
};

describe('azure traces: routing', () => {
  test('an event mixing log and trace records gives log records and spans, each record once, in order', () => {
    const { records, spans, stats } = decode({ records: [auditLog, request(), auditLog, dependency()] });
    assert.equal(records.length, 2);
    assert.deepEqual(
      records.map((r) => r.attributes['azure.category']),
      ['AuditEvent', 'AuditEvent'],
    );
    assert.deepEqual(
      spans?.map((s) => [s.name, s.kind]),
      [
        ['GET /orders', 2],
        ['GET /stock', 3],
      ],
    );
    assert.equal(stats.failedEvents, 0);
    assert.equal(stats.refusedRecords, undefined);
  });

  test('without traces in signals, requests and dependencies stay log records', () => {
    for (const signals of [['logs'], ['logs', 'metrics']] as Signal[][]) {
      const { records, spans } = decode({ records: [request(), dependency()] }, decoderFor(signals));
      assert.equal(spans, undefined, signals.join());
      assert.deepEqual(
        records.map((r) => r.attributes['azure.Type']),
        ['AppRequests', 'AppDependencies'],
      );
    }
    // The default decoder (no signals option) feeds logs only.
    assert.equal(decode({ records: [request()] }, createDecoder({ format: 'azure' })).spans, undefined);
  });

  test('other Application Insights tables and records without Type stay log records', () => {
    const { records, spans } = decode({
      records: [request({ Type: 'AppTraces' }), request({ Type: 'apprequests' }), auditLog],
    });
    assert.equal(spans, undefined);
    assert.equal(records.length, 3);
  });

  test('semantic-conventions mode routes the same way', () => {
    const d = decoderFor(['logs', 'traces'], { applySemanticConventions: true });
    const { records, spans } = decode({ records: [auditLog, request()] }, d);
    assert.equal(records.length, 1);
    assert.equal(spans?.length, 1);
  });

  test('when an event goes raw, its spans go with it and the whole event is one raw log record', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 70; i++) deep = [deep];
    const d = decoderFor(['logs', 'traces']);
    const { records, spans, stats } = d(
      [
        fixtureEvent(JSON.stringify({ records: [request(), request({ Id: 'not-hex' }), { ...auditLog, deep }] })),
        fixtureEvent(JSON.stringify({ records: [dependency()] })),
      ],
      FIXTURE_CONTEXT,
    );
    assert.equal(stats.failedEvents, 1);
    assert.equal(records.length, 1);
    assert.equal(records[0]!.attributes['error.type'], 'nesting_too_deep');
    assert.match(String(records[0]!.body), /AppRequests/);
    // Only the second event's span is left; the refusal in the rolled-back event is not counted.
    assert.deepEqual(
      spans?.map((s) => s.name),
      ['GET /stock'],
    );
    assert.equal(stats.refusedRecords, undefined);
  });
});

describe('azure traces: spans', () => {
  test('ids, kind, name, times and status of a request', () => {
    const [span] = decode({ records: [request()] }).spans!;
    assert.equal(span!.traceId, TRACE_ID);
    assert.equal(span!.spanId, '53995c3f42cd8ad8');
    assert.equal(span!.parentSpanId, '00f067aa0ba902b7');
    assert.equal(span!.kind, 2);
    const start = Math.floor(Date.parse('2024-05-14T09:30:00Z') / 1000);
    assert.deepEqual(span!.startTime, [start, 500_000_000]);
    assert.deepEqual(span!.endTime, [start, 512_500_000]);
    assert.deepEqual(span!.status, { code: 1 });
    assert.equal(span!.attributes['http.request.method'], 'GET');
    assert.equal(span!.attributes['server.address'], 'web.example.com');
    assert.equal(span!.attributes['url.path'], '/orders');
  });

  test('uppercase hex ids are lowercased; a ParentId equal to the OperationId makes a root span', () => {
    const [span] = decode({
      records: [request({ OperationId: TRACE_ID.toUpperCase(), ParentId: TRACE_ID.toUpperCase() })],
    }).spans!;
    assert.equal(span!.traceId, TRACE_ID);
    assert.equal(span!.parentSpanId, '');
    const [noParent] = decode({ records: [request({ ParentId: undefined })] }).spans!;
    assert.equal(noParent!.parentSpanId, '');
  });

  test('Success false or absent is an error status (as in Go); a duration crossing a second carries over', () => {
    const { spans } = decode({
      records: [request({ Success: false }), request({ Success: null, DurationMs: 1500.25 })],
    });
    assert.deepEqual(
      spans!.map((s) => s.status.code),
      [2, 2],
    );
    const start = Math.floor(Date.parse('2024-05-14T09:30:00Z') / 1000);
    assert.deepEqual(spans![1]!.endTime, [start + 2, 250_000]); // .5 s + 1500.25 ms
  });

  test('a dependency: client kind, method by DependencyType, path from Name, Properties copied', () => {
    const props = { 'HTTP Method': 'GET', 'Backend Method': 'PUT', 'Request-User-Agent': 'curl/8', team: 'stock' };
    const { spans } = decode({
      records: [
        dependency({ Properties: props }),
        dependency({ DependencyType: 'Backend', Properties: props }),
        dependency({ DependencyType: 'SQL', Target: 'db.example.com | orders', Name: 'orders', Properties: null }),
      ],
    });
    const [http, backend, sql] = spans!;
    assert.equal(http!.kind, 3);
    assert.equal(http!.attributes['http.request.method'], 'GET');
    assert.equal(http!.attributes['server.address'], 'stock.example.com:8443');
    assert.equal(http!.attributes['url.scheme'], 'https');
    assert.equal(http!.attributes['url.path'], '/stock');
    assert.equal(http!.attributes['user_agent.original'], 'curl/8');
    assert.equal(http!.attributes['team'], 'stock');
    assert.equal(http!.attributes['HTTP Method'], undefined);
    assert.equal(backend!.attributes['http.request.method'], 'PUT');
    assert.equal(sql!.attributes['http.request.method'], undefined);
    assert.equal(sql!.attributes['server.address'], '');
    assert.equal(sql!.attributes['url.path'], '');
    assert.equal(sql!.attributes['url.full'], 'db.example.com | orders');
  });

  test('a URL Go cannot parse gives empty parts instead of stopping (Go panics on it)', () => {
    const [span] = decode({ records: [request({ Url: 'https://web.example.com/%zz' })] }).spans!;
    assert.equal(span!.attributes['server.address'], '');
    assert.equal(span!.attributes['url.path'], '');
    assert.equal(span!.attributes['url.full'], 'https://web.example.com/%zz');
  });

  test('field names match case-insensitively, as in Go', () => {
    const [span] = decode({
      records: [{ ...request(), OperationId: undefined, operationid: TRACE_ID, NAME: 'renamed' }],
    }).spans!;
    assert.equal(span!.traceId, TRACE_ID);
    assert.equal(span!.name, 'renamed');
  });

  test('time_formats.traces layouts are tried first; a bad layout fails at configuration time', () => {
    const d = decoderFor(['logs', 'traces'], { traceTimeFormats: ['02/01/2006 15:04:05'] });
    const [span] = decode({ records: [request({ time: '14/05/2024 09:30:00' })] }, d).spans!;
    assert.deepEqual(span!.startTime, [Math.floor(Date.parse('2024-05-14T09:30:00Z') / 1000), 0]);
    assert.throws(() => decoderFor(['traces'], { traceTimeFormats: ['no date here'] }), /traceTimeFormats\[0\]/);
    // The log path's time_formats do not apply to spans.
    assert.equal(decode({ records: [request({ time: '14/05/2024 09:30:00' })] }).spans, undefined);
  });

  test('TimeGenerated (Log Analytics data export) is the time when there is no time field', () => {
    const [span] = decode({ records: [request({ time: undefined, TimeGenerated: '2024-05-14T09:31:00Z' })] }).spans!;
    assert.deepEqual(span!.startTime, [Math.floor(Date.parse('2024-05-14T09:31:00Z') / 1000), 0]);
  });

  test('spans of one resource and role share one Resource object, across batches', () => {
    const first = decode({ records: [request(), dependency()] }).spans!;
    const second = decode({ records: [request()] }).spans!;
    assert.equal(first[0]!.resource, first[1]!.resource);
    assert.equal(first[0]!.resource, second[0]!.resource);
    assert.deepEqual(
      { ...first[0]!.resource.attributes },
      {
        'telemetry.sdk.name': 'otelcol-azure-eventhub',
        'telemetry.sdk.language': 'nodejs',
        'telemetry.sdk.version': INSTRUMENTATION_SCOPE.version,
        'cloud.provider': 'azure',
        'service.name': 'web',
        'azure.resource.id': RESOURCE_ID,
      },
    );
    const [other] = decode({ records: [request({ AppRoleName: 'api' })] }).spans!;
    assert.notEqual(other!.resource, first[0]!.resource);
    assert.equal(other!.resource.attributes['service.name'], 'api');
  });
});

describe('azure traces: records that are no valid span stay log records', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['OperationId not hex', { OperationId: 'ab-cd' }, /OperationId "ab-cd" is not a 32-digit hex trace id/],
    ['OperationId too short', { OperationId: '4bf92f3577b34da6' }, /OperationId/],
    ['OperationId all zeros', { OperationId: '0'.repeat(32) }, /OperationId/],
    ['OperationId missing', { OperationId: undefined }, /OperationId "" is not/],
    [
      'legacy hierarchical Id',
      { Id: '|4bf92f3577b34da6a3ce929d0e0e4736.53995c3f42cd8ad8.' },
      /Id ".*" is not a 16-digit hex span id/,
    ],
    ['ParentId of another length', { ParentId: '00f067aa' }, /ParentId "00f067aa" is neither/],
    ['time that does not parse', { time: 'yesterday' }, /time "yesterday" does not parse/],
    ['Success as text', { Success: 'true' }, /Success is a string, not a boolean/],
    ['DurationMs as text', { DurationMs: '12' }, /DurationMs is a string, not a number/],
    ['negative DurationMs', { DurationMs: -1 }, /DurationMs -1 is not a duration/],
    ['Properties value not a string', { Properties: { 'HTTP Method': 1 } }, /Properties\["HTTP Method"\] is a number/],
    ['Name not a string', { Name: 42 }, /Name is a number, not a string/],
  ];
  for (const [name, over, message] of cases) {
    test(name, () => {
      const { records, spans, stats } = decode({ records: [request(over), dependency()] });
      assert.equal(spans?.length, 1, 'the valid dependency is still a span');
      assert.equal(records.length, 1);
      const r = records[0]!;
      assert.equal(r.attributes['error.type'], 'invalid_trace_record');
      assert.match(String(r.attributes['error.message']), message);
      // Still the full log record of the default mapping.
      assert.equal(r.attributes['azure.Type'], 'AppRequests');
      assert.equal(stats.refusedRecords, 1);
      assert.equal(stats.failedEvents, 0);
    });
  }

  test('refusals are counted across events of one batch', () => {
    const d = decoderFor(['logs', 'traces']);
    const bad = fixtureEvent(JSON.stringify({ records: [request({ Id: 'x' }), request({ Id: 'y' })] }));
    assert.equal(d([bad, bad], FIXTURE_CONTEXT).stats.refusedRecords, 4);
  });
});

describe('azure traces: URL parts', () => {
  test("the plain-URL fast path gives what Go's url.Parse (parseGoUrl) gives", () => {
    const urls = [
      'https://web.example.com/orders',
      'HTTPS://Web.Example.com:443/a/b?x=1#top',
      'http://h:/p',
      'svc+grpc://h.local',
      'https://h/a b/c',
      'https://h?q',
      'https://h#f',
      'https://h/p?q=a/b;c',
      'https://xn--bcher-kva.example/',
      'https://h/%41',
      'https://user@h/',
      'https://[::1]:80/',
      'https://h:8x/',
      'example.org',
      'example.org:443',
    ];
    for (const url of urls) {
      let expected: { scheme: string; host: string; path: string };
      try {
        const { scheme, host, path } = parseGoUrl(url);
        expected = { scheme, host, path };
      } catch {
        expected = { scheme: '', host: '', path: '' };
      }
      const { scheme, host, path } = goUrl(url);
      assert.deepEqual({ scheme, host, path }, expected, url);
    }
  });
});
