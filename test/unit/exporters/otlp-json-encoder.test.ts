import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { JsonLogsSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { encodeLogsRequestJson } from '../../../src/exporters/internal/otlp-json-encoder.ts';
import { encodeLogsRequest } from '../../../src/exporters/internal/otlp-proto-encoder.ts';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import { SAMPLE_CATEGORIES, sampleResourceLogBody } from '../../../scripts/local/samples.ts';
import { OtlpStrictError, strictDecodeJson, strictDecodeProto } from '../../helpers/otlp-strict.ts';

const resource = resourceFromAttributes({ 'service.name': 'json-test', 'lone\ud800key': 'v\udfff' });
const scope = Object.freeze({ name: 'otelcol-azure-eventhub', version: '1.2.3' });

function record(overrides: Partial<ReadableLogRecord> = {}): ReadableLogRecord {
  return {
    hrTime: [1_700_000_000, 123_456_789],
    hrTimeObserved: [1_700_000_001, 5],
    severityNumber: 9,
    severityText: 'Information',
    body: 'hello',
    resource,
    instrumentationScope: scope,
    attributes: {},
    droppedAttributesCount: 0,
    ...overrides,
  };
}

const hostile: ReadableLogRecord[] = [
  record({
    body: {
      nested: [
        'a\ud83d',
        1e20,
        9_223_372_036_854_776_000,
        -(2 ** 63),
        2 ** 60,
        Number.NaN,
        Infinity,
        -Infinity,
        0.5,
        -0,
      ],
    } as never,
    attributes: {
      'k\udc00': '\ud83d',
      big: 1e20,
      int: 42,
      neg: -7,
      nan: 'NaN',
      inf: 'Infinity',
      bytes: new Uint8Array([0, 255]),
      none: null,
    },
    eventName: 'e\ud800',
    severityText: '\udbff',
  }),
  record({ hrTime: [-11_644_473_600, 0], body: undefined }),
  record({
    hrTime: [32_503_680_000, 0],
    spanContext: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 },
  }),
];

describe('OTLP/JSON logs encoder', () => {
  test('hostile values are strict OTLP/JSON, and the same content as the protobuf encoding', () => {
    const json = strictDecodeJson(encodeLogsRequestJson(hostile));
    assert.deepEqual(json, strictDecodeProto(encodeLogsRequest(hostile)));
    const logs = json.resourceLogs[0].scopeLogs[0].logRecords;
    const body = logs[0].body.kvlistValue.values[0].value.arrayValue.values;
    assert.deepEqual(
      body.map((v: any) => Object.keys(v)[0]),
      [
        'stringValue',
        'doubleValue',
        'doubleValue',
        'intValue',
        'intValue',
        'doubleValue',
        'doubleValue',
        'doubleValue',
        'doubleValue',
        'intValue',
      ],
    );
    assert.equal(body[0].stringValue, 'a\ufffd');
    assert.equal(body[3].intValue, '-9223372036854775808');
    assert.equal(body[4].intValue, '1152921504606846976');
    assert.ok(Number.isNaN(body[5].doubleValue));
    assert.equal(logs[0].attributes[0].key, 'k\ufffd');
    assert.equal(logs[0].eventName, 'e\ufffd');
    assert.equal(logs[1].timeUnixNano, undefined, 'a 1601 time is 0 (unknown), not negative and not wrapped');
    assert.equal(logs[2].timeUnixNano, undefined, 'year 3000 too');
    assert.equal(json.resourceLogs[0].resource.attributes[1].value.stringValue, 'v\ufffd');
  });

  test('realistic azure-decoded records: the same content in both encodings', () => {
    const decode = createDecoder({ format: 'azure' });
    const events = SAMPLE_CATEGORIES.map((c, n) => ({
      body: Buffer.from(sampleResourceLogBody(c, { records: 2, index: n })),
      sequenceNumber: n,
      offset: String(n),
      enqueuedTime: new Date(),
    }));
    const { records } = decode(events, {
      namespace: 'ns.servicebus.windows.net',
      eventHubName: 'logs',
      consumerGroup: '$Default',
      partitionId: '0',
    });
    const sent = records as ReadableLogRecord[];
    assert.deepEqual(strictDecodeJson(encodeLogsRequestJson(sent)), strictDecodeProto(encodeLogsRequest(sent)));
  });

  test('the strict checker refuses what upstream JsonLogsSerializer writes for the same records', () => {
    for (const r of hostile) {
      assert.throws(() => strictDecodeJson(JsonLogsSerializer.serializeRequest([r])!), OtlpStrictError);
    }
  });
});
