import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import type { DecoderOptions } from '../../../src/decode/decoder.ts';

const ctx = {
  namespace: 'ns.servicebus.windows.net',
  eventHubName: 'hub',
  consumerGroup: '$Default',
  partitionId: '0',
};

function decode(records: unknown[], options: Partial<DecoderOptions> = {}) {
  const decoder = createDecoder({ format: 'azure_encoding', now: () => 0, ...options });
  const body = new TextEncoder().encode(JSON.stringify({ records }));
  return decoder([{ body, sequenceNumber: 1, offset: '1', enqueuedTime: new Date('2030-01-01T00:00:00Z') }], ctx)
    .records;
}

describe('azure_encoding decoder', () => {
  it('maps a Front Door access log as the Go extension does, keeping the URL port as written', () => {
    const [r] = decode([
      {
        time: '2025-04-24T13:14:28.0000000Z',
        resourceId: '/R',
        category: 'FrontDoorAccessLog',
        properties: {
          requestUri: 'https://h.example:443/a%20b?x=1',
          httpStatusCode: '200',
          timeTaken: '0.035',
          securityProtocol: 'TLS 1.3',
          clientIp: '10.0.0.1',
          originIp: '23.100.1.29:443',
          result: 'N/A',
          sni: 'N/A',
          ErrorInfo: 'NoError',
        },
      },
    ]);
    assert.ok(r);
    assert.equal(r.attributes['url.full'], 'https://h.example:443/a%20b?x=1');
    assert.equal(r.attributes['url.port'], 443);
    assert.equal(r.attributes['url.path'], '/a b');
    assert.equal(r.attributes['http.response.status_code'], 200);
    assert.equal(r.attributes['azure.request.duration'], 0.035);
    assert.equal(r.attributes['tls.protocol.version'], '1.3');
    assert.equal(r.attributes['tls.server.name'], undefined);
    assert.equal(r.attributes['exception.type'], undefined);
    assert.equal(r.body, undefined);
    assert.equal(r.resource.attributes['cloud.resource_id'], '/R');
    assert.equal(r.resource.attributes['cloudevents.event_source'], 'azure.resource.log');
    // the origin keeps Go's name: no Event Hubs metadata by default
    assert.equal(r.attributes['server.address'], '23.100.1.29');
    assert.equal(r.attributes['azure.record.server.address'], undefined);
    assert.equal(r.attributes['server.port'], 443);
  });

  it('repairs single-quoted Function App properties and names the service from appName/functionName', () => {
    const [r] = decode([
      {
        time: '2026-04-07T16:06:56Z',
        category: 'FunctionAppLogs',
        level: 'Warning',
        resourceId: '/F',
        properties: "{'appName':'app','functionName':'fn','message':'it\\'s done','processId':9}",
      },
    ]);
    assert.ok(r);
    assert.equal(r.resource.attributes['service.name'], 'app/fn');
    assert.equal(r.attributes['faas.name'], 'app/fn');
    assert.equal(r.attributes['process.pid'], 9);
    // The event holds `it\\'s` (a backslash, escaped, then the quote): repaired on that text, as Go does, the
    // backslash stays; only a bare `\'` in the text is an escaped quote.
    assert.equal(r.body, "it\\'s done");
    assert.equal(r.severityNumber, 13);
    assert.equal(r.severityText, 'Warning');
  });

  it(
    'repairs single-quoted properties on their JSON text: escapes inside values (a newline, a path, a quote) keep ' +
      'the mapping',
    () => {
      for (const format of ['azure_encoding', 'azure'] as const) {
        const options = format === 'azure' ? { format, applySemanticConventions: true } : { format };
        const [r] = createDecoder(options)(
          [
            {
              body: new TextEncoder().encode(
                JSON.stringify({
                  records: [
                    {
                      time: '2026-04-07T16:06:56Z',
                      category: 'FunctionAppLogs',
                      resourceId: '/F',
                      properties:
                        "{'appName':'app','functionName':'fn','message':'line 1\nat C:\\x \"q\"','processId':9}",
                    },
                  ],
                }),
              ),
              sequenceNumber: 1,
              offset: '1',
              enqueuedTime: new Date('2030-01-01T00:00:00Z'),
            },
          ],
          ctx,
        ).records;
        const message =
          format === 'azure' ? (r!.body as { properties: { message: string } }).properties.message : r!.body;
        assert.equal(message, 'line 1\nat C:\\x "q"', format);
        if (format === 'azure_encoding') {
          assert.equal(r!.resource.attributes['service.name'], 'app/fn');
          assert.equal(r!.attributes['process.pid'], 9);
        }
      }
    },
  );

  it(
    "runs the sanitizers on the raw event text, as the other formats: Functions' bare single-quoted " + 'properties',
    () => {
      const body =
        `{"records":[{"time":"2026-04-07T16:06:56Z","category":"FunctionAppLogs","resourceId":"/F",` +
        `"properties":{'appName':'app','functionName':'fn','message':'Executed 'Functions.Run' (Succeeded)'}}]}`;
      const { records, stats } = createDecoder({ format: 'azure_encoding' })(
        [
          {
            body: new TextEncoder().encode(body),
            sequenceNumber: 1,
            offset: '1',
            enqueuedTime: new Date('2030-01-01T00:00:00Z'),
          },
        ],
        ctx,
      );
      assert.equal(stats.sanitizedEvents, 1);
      assert.equal(records[0]!.body, "Executed 'Functions.Run' (Succeeded)");
      assert.equal(records[0]!.attributes['error.type'], undefined);
    },
  );

  it('stores a record without a category raw, and one with an unparsable time raw with the enqueued time', () => {
    const records = decode([
      { time: '2022-11-11T04:48:27Z', operationName: 'x' },
      { time: 'nope', category: 'AuditEvent' },
    ]);
    assert.equal(records.length, 2);
    for (const r of records) {
      assert.equal(typeof r.body, 'string');
      assert.equal(r.severityText, 'Unspecified');
      assert.deepEqual(r.hrTime, [Date.parse('2030-01-01T00:00:00Z') / 1000, 0]);
    }
    assert.equal(records[1]?.attributes['azure.timestamp.fallback'], 'unparsable');
  });

  it('refuses a Go string field given a number by storing the record raw, as the extension does', () => {
    const [r] = decode([{ time: '2022-11-11T04:48:27Z', category: 'AuditEvent', operationName: 42 }]);
    assert.equal(r?.body, JSON.stringify({ time: '2022-11-11T04:48:27Z', category: 'AuditEvent', operationName: 42 }));
  });

  it('filters categories: exclude wins over include', () => {
    const recs = [
      { time: '2022-11-11T04:48:27Z', category: 'A' },
      { time: '2022-11-11T04:48:27Z', category: 'B' },
    ];
    assert.equal(decode(recs, { includeCategories: ['A'] }).length, 1);
    assert.equal(decode(recs, { includeCategories: ['A'], excludeCategories: ['A'] }).length, 0);
  });

  it('reads Event Hubs operational logs: EventTimeString via time formats, EventProperties as a JSON string', () => {
    const [r] = decode(
      [
        {
          category: 'OperationalLogs',
          EventTimeString: '9/7/2022 2:41:35 PM +00:00',
          Status: 'Failed',
          resourceId: '/X/MICROSOFT.SERVICEBUS/Y',
          EventProperties: '{"ErrorCode":"BadRequest"}',
        },
      ],
      { timeFormats: ['1/2/2006 3:04:05 PM -07:00'] },
    );
    assert.ok(r);
    assert.deepEqual(r.hrTime, [1662561695, 0]);
    assert.equal(r.attributes['error.code'], 'BadRequest');
    assert.equal(r.attributes['error.type'], 'Failed');
    assert.equal(r.attributes['messaging.system'], 'servicebus');
    assert.equal(r.attributes['azure.record.messaging.system'], undefined);
  });
});
