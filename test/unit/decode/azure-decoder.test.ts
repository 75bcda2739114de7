import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import { GO_AZURE_SCOPE } from '../../../src/decode/internal/scope.ts';
import {
  FIXTURE_CONTEXT,
  FIXTURE_ENQUEUED_TIME,
  FIXTURE_OBSERVED_MS,
  fixtureEvent,
} from '../../fixtures/decode/fixture-support.ts';

const decoder = createDecoder({ format: 'azure', now: () => FIXTURE_OBSERVED_MS });
const decodeOne = (body: unknown, d = decoder) =>
  d([fixtureEvent(typeof body === 'string' ? body : JSON.stringify(body))], FIXTURE_CONTEXT);
const enqueuedHr: [number, number] = [
  Math.floor(FIXTURE_ENQUEUED_TIME.getTime() / 1000),
  (FIXTURE_ENQUEUED_TIME.getTime() % 1000) * 1e6,
];
const record = (over: Record<string, unknown> = {}) => ({
  time: '2024-05-14T09:30:00.1234567Z',
  resourceId: '/subscriptions/s/rg/r',
  category: 'AuditEvent',
  operationName: 'VaultGet',
  ...over,
});

describe('azure format: body shapes', () => {
  test('{"records": [...]} gives one record per element, in order', () => {
    const { records, stats } = decodeOne({
      records: [record({ operationName: 'a' }), record({ operationName: 'b' }), record({ operationName: 'c' })],
    });
    assert.deepEqual(
      records.map((r) => r.attributes['azure.operation.name']),
      ['a', 'b', 'c'],
    );
    assert.deepEqual(stats, { failedEvents: 0, sanitizedEvents: 0, timestampFallbacks: 0 });
  });

  test('a bare array and a single record object are accepted too', () => {
    assert.equal(decodeOne([record(), record()]).records.length, 2);
    const single = decodeOne(record({ operationName: 'solo' })).records;
    assert.equal(single.length, 1);
    assert.equal(single[0]!.attributes['azure.operation.name'], 'solo');
  });

  test('an empty records array yields no records and no error', () => {
    assert.deepEqual(decodeOne({ records: [] }), {
      records: [],
      stats: { failedEvents: 0, sanitizedEvents: 0, timestampFallbacks: 0 },
    });
  });

  test('a records element that is not an object is kept, flagged unexpected_shape', () => {
    const { records } = decodeOne({ records: [record(), 'stray text', 7] });
    assert.equal(records.length, 3);
    assert.equal(records[1]!.body, 'stray text');
    assert.equal(records[1]!.attributes['error.type'], 'unexpected_shape');
    assert.equal(records[2]!.body, 7);
  });

  test('a JSON scalar body is exported raw with error.type unexpected_shape', () => {
    const { records, stats } = decodeOne('"just a string"');
    assert.equal(records[0]!.body, '"just a string"');
    assert.equal(records[0]!.attributes['error.type'], 'unexpected_shape');
    assert.equal(stats.failedEvents, 1);
  });
});

describe('azure format: timestamps', () => {
  test('time wins; nanosecond precision kept', () => {
    const [r] = decodeOne({ records: [record()] }).records;
    assert.deepEqual(r!.hrTime, [Math.floor(Date.parse('2024-05-14T09:30:00Z') / 1000), 123_456_700]);
  });

  test('each alternative field is used when time is absent, and names are matched case-insensitively', () => {
    const at = (t: string) => [Math.floor(Date.parse(t) / 1000), 0];
    for (const field of [
      'timeStamp',
      'TimeGenerated',
      'EventTimeString',
      'EventTimestamp',
      'startTime',
      'Time',
      'timestamp',
    ]) {
      const [r] = decodeOne({ records: [{ [field]: '2024-05-14T09:30:00Z', category: 'X' }] }).records;
      assert.deepEqual(r!.hrTime, at('2024-05-14T09:30:00Z'), field);
      assert.equal(r!.attributes['azure.timestamp.fallback'], undefined, field);
      assert.equal(r!.attributes[`azure.${field}`], undefined, `${field} is consumed`);
    }
  });

  test('an unparsable time falls through to the next field; the unused value is kept as an attribute', () => {
    const [r] = decodeOne({ records: [{ time: 'not a time', startTime: '2024-05-14T09:30:00Z' }] }).records;
    assert.deepEqual(r!.hrTime, [Math.floor(Date.parse('2024-05-14T09:30:00Z') / 1000), 0]);
    assert.equal(r!.attributes['azure.time'], 'not a time');
  });

  test('when nothing parses the record is kept with the enqueued time and says so', () => {
    const { records, stats } = decodeOne({ records: [record({ time: '31/31/2024 99:99' }), { category: 'NoTime' }] });
    assert.equal(records.length, 2);
    assert.deepEqual(records[0]!.hrTime, enqueuedHr);
    assert.equal(records[0]!.attributes['azure.timestamp.fallback'], 'unparsable');
    assert.equal(records[0]!.attributes['azure.time'], '31/31/2024 99:99');
    assert.equal(records[1]!.attributes['azure.timestamp.fallback'], 'missing');
    assert.equal(stats.timestampFallbacks, 2);
  });

  test('user time_formats are tried first (Go layouts)', () => {
    const custom = createDecoder({ format: 'azure', timeFormats: ['02.01.2006 15:04:05'] });
    const [r] = decodeOne({ records: [{ time: '14.05.2024 09:30:00' }] }, custom).records;
    assert.deepEqual(r!.hrTime, [Math.floor(Date.parse('2024-05-14T09:30:00Z') / 1000), 0]);
    assert.equal(
      decodeOne({ records: [{ time: '14.05.2024 09:30:00' }] }).records[0]!.attributes['azure.timestamp.fallback'],
      'unparsable',
    );
  });

  test('epoch numbers are timestamps', () => {
    const [r] = decodeOne({ records: [{ time: 1_715_679_000_250 }] }).records;
    assert.deepEqual(r!.hrTime, [1_715_679_000, 250_000_000]);
  });

  test('observed time is the decode time', () => {
    const [r] = decodeOne({ records: [record()] }).records;
    assert.deepEqual(r!.hrTimeObserved, [Math.floor(FIXTURE_OBSERVED_MS / 1000), 0]);
  });
});

describe('azure format: attributes (Go receiver names)', () => {
  const full = record({
    resourceId: '/SUBSCRIPTIONS/S/RESOURCEGROUPS/RG/PROVIDERS/MICROSOFT.KEYVAULT/VAULTS/KV',
    tenantId: 'tenant-1',
    operationVersion: '7.4',
    resultType: 'Success',
    resultSignature: 200,
    resultDescription: 'all good',
    durationMs: '78',
    callerIpAddress: '10.0.0.1',
    correlationId: 'corr-1',
    identity: { claim: { appid: 'app' } },
    level: 'Warning',
    location: 'westeurope',
    properties: { requestUri: 'https://kv/', httpStatusCode: 200, nested: { a: [1, 2.5, { b: null }] } },
    schemaVersion: '1.0',
    statusCode: 200,
    uri: 'https://x/',
  });

  test("the common schema maps to the Go receiver's attribute names", () => {
    const [r] = decodeOne({ records: [full] }).records;
    const a = r!.attributes;
    assert.equal(a['azure.category'], 'AuditEvent');
    assert.equal(a['azure.operation.name'], 'VaultGet');
    assert.equal(a['azure.operation.version'], '7.4');
    assert.equal(a['azure.result.type'], 'Success');
    assert.equal(a['azure.result.signature'], '200', 'typed as a string, as in the Go receiver');
    assert.equal(a['azure.result.description'], 'all good');
    assert.equal(a['azure.duration'], 78, 'durationMs as a number even when sent as a string');
    assert.equal(a['azure.correlation.id'], 'corr-1');
    assert.equal(a['azure.tenant.id'], 'tenant-1');
    assert.deepEqual(a['azure.identity'], { claim: { appid: 'app' } });
    assert.deepEqual(a['azure.properties'], {
      requestUri: 'https://kv/',
      httpStatusCode: 200,
      nested: { a: [1, 2.5, { b: null }] },
    });
    assert.equal(a['net.sock.peer.addr'], '10.0.0.1', 'semconv 1.13 name, as the Go receiver writes it');
    assert.equal(a['network.peer.address'], undefined);
    assert.equal(a['cloud.region'], 'westeurope');
    assert.equal(a['cloud.provider'], 'azure');
    assert.equal(r!.severityNumber, SeverityNumber.WARN);
    assert.equal(r!.severityText, 'Warning');
    assert.deepEqual(r!.resource.attributes, {
      'azure.resource.id': '/SUBSCRIPTIONS/S/RESOURCEGROUPS/RG/PROVIDERS/MICROSOFT.KEYVAULT/VAULTS/KV',
    });
    assert.equal(r!.instrumentationScope.name, GO_AZURE_SCOPE.name, "the Go translator's scope name");
    assert.equal(r!.droppedAttributesCount, 0);
  });

  test('top-level fields outside the common schema are kept as azure.<field>', () => {
    const a = decodeOne({ records: [full] }).records[0]!.attributes;
    assert.equal(a['azure.schemaVersion'], '1.0');
    assert.equal(a['azure.statusCode'], 200);
    assert.equal(a['azure.uri'], 'https://x/');
    for (const consumed of ['azure.time', 'azure.resourceId', 'azure.level', 'azure.properties.requestUri'])
      assert.equal(a[consumed], undefined, consumed);
  });

  test('common-schema names match case-insensitively (ResourceId, OperationName, Level)', () => {
    const [r] = decodeOne({
      records: [{ Time: '2024-05-14T09:30:00Z', ResourceId: '/x', OperationName: 'op', Level: 'Error', Category: 'C' }],
    }).records;
    assert.equal(r!.attributes['azure.operation.name'], 'op');
    assert.equal(r!.attributes['azure.category'], 'C');
    assert.equal(r!.severityNumber, SeverityNumber.ERROR);
    assert.deepEqual(r!.resource.attributes, { 'azure.resource.id': '/x' });
  });

  test('properties are kept as sent, a JSON string too; EventProperties is a field like any other', () => {
    const only = decodeOne({ records: [{ EventProperties: { a: 1 } }] }).records[0]!.attributes;
    assert.equal(only['azure.properties'], undefined);
    assert.deepEqual(only['azure.EventProperties'], { a: 1 });
    const text = decodeOne({ records: [{ properties: '{"CsMethod":"GET"}' }] }).records[0]!.attributes;
    assert.equal(text['azure.properties'], '{"CsMethod":"GET"}');
    assert.equal(text['http.request.method'], undefined, 'no lifting in default mode');
  });

  test("severity: Go's rule, from Level/level only (no properties.level fallback)", () => {
    const sev = (level: unknown) => {
      const [r] = decodeOne({ records: [{ Level: level, properties: { level: 'Error' } }] }).records;
      return [r!.severityNumber, r!.severityText];
    };
    assert.deepEqual(sev('Informational'), [SeverityNumber.INFO, 'Informational']);
    assert.deepEqual(sev('Critical'), [SeverityNumber.FATAL, 'Critical']);
    assert.deepEqual(sev(4), [SeverityNumber.TRACE4, '4'], 'a number is the severity number, not an ETW level');
    assert.deepEqual(sev('17'), [SeverityNumber.ERROR, '17']);
    assert.deepEqual(
      sev('Information'),
      [SeverityNumber.UNSPECIFIED, 'Information'],
      'only four names, case-sensitive',
    );
    assert.deepEqual(sev('warning'), [SeverityNumber.UNSPECIFIED, 'warning']);
    assert.deepEqual(sev(0), [SeverityNumber.UNSPECIFIED, '0']);
    assert.deepEqual(sev(99), [SeverityNumber.UNSPECIFIED, '99'], 'past FATAL4 is no valid severity number');
    const [none] = decodeOne({ records: [{ category: 'x', properties: { level: 'Error' } }] }).records;
    assert.equal(none!.severityNumber, undefined);
    assert.equal(none!.severityText, undefined);
  });

  test('Level and level both present (Data Factory): the last sets the severity, the other is kept', () => {
    const [r] = decodeOne({ records: [{ Level: 4, category: 'PipelineRuns', level: 'Informational' }] }).records;
    assert.equal(r!.severityNumber, SeverityNumber.INFO);
    assert.equal(r!.severityText, 'Informational');
    assert.equal(r!.attributes['azure.Level'], 4);
    assert.equal(r!.attributes['azure.level'], undefined);
    const [swapped] = decodeOne({ records: [{ level: 'Informational', Level: 4 }] }).records;
    assert.equal(swapped!.severityNumber, SeverityNumber.TRACE4);
    assert.equal(swapped!.attributes['azure.level'], 'Informational');
  });

  test('no body, as in the Go receiver: resultDescription and properties.message stay in their attributes', () => {
    const [r] = decodeOne({ records: [{ properties: { message: 'm' }, resultDescription: 'd' }] }).records;
    assert.equal(r!.body, undefined);
    assert.equal(r!.attributes['azure.result.description'], 'd');
    assert.deepEqual(r!.attributes['azure.properties'], { message: 'm' });
  });

  test('empty or null common fields are left out; category and operation name are always there', () => {
    const [r] = decodeOne({
      records: [
        {
          time: '2024-05-14T09:30:00Z',
          tenantId: '',
          resultType: '',
          correlationId: null,
          location: '',
          callerIpAddress: '',
          identity: null,
          properties: null,
        },
      ],
    }).records;
    for (const name of [
      'azure.tenant.id',
      'azure.result.type',
      'azure.correlation.id',
      'cloud.region',
      'net.sock.peer.addr',
      'azure.identity',
      'azure.properties',
    ]) {
      assert.equal(name in r!.attributes, false, name);
    }
    assert.equal(r!.attributes['azure.category'], '');
    assert.equal(r!.attributes['azure.operation.name'], '');
    assert.deepEqual(r!.resource.attributes, { 'azure.resource.id': '' }, 'Go writes the id even when empty');
  });

  test('durationMs: an integer (number or text) is azure.duration; anything else is kept as azure.durationMs', () => {
    const attrs = (durationMs: unknown) => decodeOne({ records: [{ durationMs }] }).records[0]!.attributes;
    assert.equal(attrs('1234')['azure.duration'], 1234);
    assert.equal(attrs(56)['azure.duration'], 56);
    assert.equal(attrs('invalid')['azure.duration'], undefined);
    assert.equal(attrs('invalid')['azure.durationMs'], 'invalid');
    assert.equal(attrs(12.5)['azure.durationMs'], 12.5);
  });

  test('a field named like Event Hubs metadata is content: kept as azure.<field>, never renamed', () => {
    const [r] = decodeOne({
      records: [{ 'eventhubs.message.offset': 'mine', 'eventhubs.message.sequence_number': 1 }],
    }).records;
    assert.equal(r!.attributes['azure.eventhubs.message.offset'], 'mine');
    assert.equal(r!.attributes['azure.eventhubs.message.sequence_number'], 1);
    assert.equal(r!.attributes['azure.record.eventhubs.message.offset'], undefined);
  });

  test('one Resource object per resource id, across records and batches; records without an id share one', () => {
    const first = decodeOne({
      records: [
        record({ resourceId: '/a' }),
        record({ resourceId: '/b' }),
        record({ resourceId: '/a' }),
        { category: 'x' },
      ],
    }).records;
    const second = decodeOne({ records: [record({ resourceId: '/a' }), { category: 'y' }] }).records;
    assert.equal(first[0]!.resource, first[2]!.resource);
    assert.notEqual(first[0]!.resource, first[1]!.resource);
    assert.equal(first[0]!.resource, second[0]!.resource);
    assert.equal(first[3]!.resource, second[1]!.resource);
    assert.deepEqual(first[3]!.resource.attributes, { 'azure.resource.id': '' });
    assert.equal(first[0]!.instrumentationScope, second[1]!.instrumentationScope, 'one stable scope object');
  });
});

describe('azure format: apply_semantic_conventions', () => {
  // The mapping itself is tested in test/unit/decode/azurelogs/ and against Go's output in go-parity.test.ts.
  const semconv = createDecoder({ format: 'azure', applySemanticConventions: true });
  test('writes the Go azurelogs layout: common fields in a body map, event.name on the resource', () => {
    const [r] = decodeOne(
      { records: [record({ tenantId: 't', correlationId: 'c', properties: { pop: 'AMS' } })] },
      semconv,
    ).records;
    assert.deepEqual(r!.resource.attributes, {
      'cloud.provider': 'azure',
      'event.name': 'az.resource.log',
      'cloud.resource_id': '/subscriptions/s/rg/r',
    });
    assert.deepEqual(r!.body, {
      category: 'AuditEvent',
      'correlation.id': 'c',
      'operation.name': 'VaultGet',
      'tenant.id': 't',
      properties: { pop: 'AMS' },
    });
    assert.equal(r!.eventName, undefined);
    assert.equal(r!.attributes['server.address'], undefined, 'no Event Hubs metadata by default');
  });

  test('lifted properties go into the body map: CsHost becomes url.domain', () => {
    const input = record({
      category: 'AppServiceHTTPLogs',
      properties: { CsHost: 'www.example.com', CsMethod: 'GET' },
    });
    const [r] = decodeOne({ records: [input] }, semconv).records;
    const body = r!.body as Record<string, unknown>;
    assert.equal(body['url.domain'], 'www.example.com');
    assert.equal(body['http.request.method'], 'GET');
  });
});
