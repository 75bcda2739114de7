import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecoder } from '../../../../src/decode/create-decoder.ts';
import { FIXTURE_CONTEXT, FIXTURE_ENQUEUED_TIME, fixtureEvent } from '../../../fixtures/decode/fixture-support.ts';

const semconv = createDecoder({ format: 'azure', applySemanticConventions: true });
const decode = (...records: Record<string, unknown>[]) =>
  semconv([fixtureEvent(JSON.stringify({ records }))], FIXTURE_CONTEXT);
const one = (record: Record<string, unknown>) => decode(record).records[0]!;
const base = { time: '2024-05-14T09:30:00Z', resourceId: '/r' };
const bodyOf = (r: { body?: unknown }) => r.body as Record<string, unknown>;

describe('apply_semantic_conventions: properties sent as a JSON string', () => {
  test('are parsed for the body map and lifted like an object (App Service HTTP logs)', () => {
    const r = one({
      ...base,
      category: 'AppServiceHTTPLogs',
      properties: '{"CsMethod":"GET","ScStatus":"404","CIp":"1.2.3.4","CsHost":"h","Cookie":""}',
    });
    assert.deepEqual(bodyOf(r), {
      category: 'AppServiceHTTPLogs',
      'operation.name': '',
      'http.request.method': 'GET',
      'http.response.status_code': 404,
      'client.address': '1.2.3.4',
      'url.domain': 'h',
      properties: { Cookie: '' },
    });
  });

  test('single-quoted ones are repaired; their level gives the severity when the record has no Level', () => {
    const r = one({ ...base, category: 'FunctionAppLogs', properties: "{'level':'Warning','message':'slow'}" });
    assert.deepEqual(bodyOf(r).properties, { level: 'Warning', message: 'slow' });
    assert.equal(r.severityNumber, 13);
    assert.equal(r.severityText, 'Warning');
  });

  test('a string that holds no object stays a string, as in Go', () => {
    assert.equal(bodyOf(one({ ...base, category: 'X', properties: 'plain text' })).properties, 'plain text');
  });
});

describe('apply_semantic_conventions: severity', () => {
  test("Go's rules: names, then a positive number as is (4 is TRACE4), anything else unspecified with its text", () => {
    assert.deepEqual(
      [one({ ...base, Level: 'Critical' })].map((r) => [r.severityNumber, r.severityText]),
      [[21, 'Critical']],
    );
    assert.deepEqual(
      [one({ ...base, Level: 4 })].map((r) => [r.severityNumber, r.severityText]),
      [[4, '4']],
    );
    assert.deepEqual(
      [one({ ...base, Level: 'verbose' })].map((r) => [r.severityNumber, r.severityText]),
      [[0, 'verbose']],
    );
  });

  test('Level and level both kept: the later one gives the severity (as in Go), the other stays an attribute', () => {
    const r = one({ ...base, category: 'PipelineRuns', Level: 4, level: 'Error', properties: {} });
    assert.equal(r.severityNumber, 17);
    assert.equal(r.attributes['azure.Level'], 4);
    const top = one({ ...base, Level: 'Error', properties: { level: 'Informational' } });
    assert.equal(top.severityText, 'Error', 'a top-level Level wins over the properties one');
  });
});

describe('apply_semantic_conventions: record attributes of mapped categories', () => {
  const frontDoor = {
    ...base,
    category: 'FrontDoorAccessLog',
    operationName: 'op',
    callerIpAddress: '9.9.9.9',
    location: 'global',
    properties: {
      requestBytes: '10',
      responseBytes: '20',
      clientPort: '5',
      httpStatusCode: '200',
      timeToFirstByte: '0.0159',
      timeTaken: '1.5',
      requestUri: 'https://h.example:443/p?q=1',
      securityProtocol: 'TLS 1.2',
      hostName: 'h.example',
      endpoint: 'e.example:8443',
      originIp: '10.0.0.1:443',
      routingRuleName: 'rule',
      errorInfo: 'NoError',
    },
  };

  test('Front Door access log: Go attributes, no body, properties Go does not read kept in azure.properties', () => {
    const r = one(frontDoor);
    assert.equal(r.body, undefined);
    const a = r.attributes;
    assert.equal(a['http.request.size'], 10);
    assert.equal(a['azure.time_to_first_byte'], 15, 'seconds to integer ms, truncated');
    assert.equal(a.duration, 1500);
    assert.equal(a['url.port'], 443);
    assert.equal(a['url.query'], 'q=1');
    assert.equal(a['tls.protocol.name'], 'TLS');
    assert.equal(a['destination.address'], 'h.example');
    assert.equal(
      a['network.peer.address'],
      '9.9.9.9',
      'callerIpAddress (common schema) overwrites the endpoint, as in Go',
    );
    assert.equal(a['network.peer.port'], 8443);
    assert.equal(a['server.port'], 443);
    assert.equal(a['azure.location'], 'global');
    assert.deepEqual(a['azure.properties'], { routingRuleName: 'rule' });
  });

  test('the origin Go writes as server.address keeps that name (no Event Hubs metadata by default)', () => {
    const a = one(frontDoor).attributes;
    assert.equal(a['server.address'], '10.0.0.1');
    assert.equal(a['azure.server.address'], undefined);
  });

  test('where Go refuses the mapping, the record gets the body-map layout and azure.mapping.error instead', () => {
    const r = one({ ...base, category: 'AzureCdnAccessLog', properties: { httpMethod: 'GET' } });
    assert.match(String(r.attributes['azure.mapping.error']), /requestBytes|number in ""/);
    assert.deepEqual(bodyOf(r).properties, { httpMethod: 'GET' });
    const typed = one({ ...base, category: 'Administrative', properties: { entity: 42 } });
    assert.match(String(typed.attributes['azure.mapping.error']), /entity/);
    const none = one({ ...base, category: 'Alert' });
    assert.equal(none.attributes['azure.mapping.error'], 'record has no properties');
    assert.equal(typeof bodyOf(none)['event.original'], 'string');
  });

  test('Policy and Service Health: the JSON strings inside properties become arrays of maps', () => {
    const policy = one({
      ...base,
      category: 'Policy',
      properties: {
        isComplianceCheck: 'False',
        resourceLocation: 'westeurope',
        policies: '[{"policyDefinitionId":"d1","policyAssignmentName":"a1"}]',
      },
    }).attributes;
    assert.equal(policy['azure.policy.compliance_check'], false);
    assert.equal(policy['azure.location'], 'westeurope');
    const [p] = policy['azure.policy.policies'] as Record<string, string>[];
    assert.equal(p!['definition.id'], 'd1');
    assert.equal(p!['assignment.name'], 'a1');
    assert.equal(p!['set_definition.id'], '', 'every key written, empty when absent, as in Go');
    const health = one({
      ...base,
      category: 'ServiceHealth',
      properties: {
        impactedServices:
          '[{"ServiceName":"S","ServiceId":"s","ServiceGuid":"g","ImpactedRegions":[{"RegionName":"R",' +
          '"RegionId":"r"}]}]',
        isHIR: true,
        IsSynthetic: 'True',
      },
    }).attributes;
    assert.deepEqual(health['azure.servicehealth.impact.services'], [
      { name: 'S', id: 's', guid: 'g', regions: [{ name: 'R', id: 'r' }] },
    ]);
    assert.equal(health['azure.servicehealth.is_hir'], true);
    assert.equal(health['azure.servicehealth.is_synthetic'], true);
  });

  test('identity: authorization and selected claims, token times as RFC 3339', () => {
    const a = one({
      ...base,
      category: 'Administrative',
      properties: {},
      identity: {
        authorization: { scope: 's', action: 'a' },
        claims: { exp: '1744717084', appid: 'app', name: 'not picked' },
      },
    }).attributes;
    assert.equal(a['azure.identity.authorization.scope'], 's');
    assert.equal(a['azure.identity.not_after'], '2025-04-15T11:38:04Z');
    assert.equal(a['azure.identity.application.id'], 'app');
    assert.equal(Object.values(a).includes('not picked'), false);
  });
});

describe('apply_semantic_conventions: body map and timestamps', () => {
  test('without properties, event.original holds the record and no azure.<field> duplicates it', () => {
    const r = one({ ...base, category: 'X', Extra: 1 });
    assert.equal(bodyOf(r)['event.original'], JSON.stringify({ ...base, category: 'X', Extra: 1 }, null, '\t'));
    assert.equal(r.attributes['azure.Extra'], undefined);
  });

  test('with properties, fields Go drops are kept as azure.<field>', () => {
    assert.equal(one({ ...base, category: 'X', Extra: 1, properties: { a: 1 } }).attributes['azure.Extra'], 1);
  });

  test('a record Go would drop for its time is kept: other time fields, then the enqueued time, flagged', () => {
    const eventTime = one({ resourceId: '/r', EventTimeString: '5/14/2024 9:30:00 AM +00:00', properties: {} });
    assert.deepEqual(eventTime.hrTime, [1715679000, 0]);
    const { records, stats } = decode({ time: 'not a time', category: 'X', properties: {} });
    assert.deepEqual(records[0]!.hrTime, [
      Math.floor(FIXTURE_ENQUEUED_TIME.getTime() / 1000),
      (FIXTURE_ENQUEUED_TIME.getTime() % 1000) * 1e6,
    ]);
    assert.equal(records[0]!.attributes['azure.timestamp.fallback'], 'unparsable');
    assert.equal(records[0]!.attributes['azure.time'], 'not a time');
    assert.equal(stats.timestampFallbacks, 1);
  });

  test('every resource carries cloud.provider and event.name; records of one resource share it', () => {
    const { records } = decode({ ...base, properties: {} }, { ...base, properties: {} });
    assert.equal(records[0]!.resource, records[1]!.resource);
    assert.deepEqual(records[0]!.resource.attributes, {
      'cloud.provider': 'azure',
      'event.name': 'az.resource.log',
      'cloud.resource_id': '/r',
    });
  });
});
