import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  encodeLogsRequest,
  LogsRequestBuilder,
  OtlpProtoLogsSerializer,
} from '../../../src/exporters/internal/otlp-proto-encoder.ts';
import { writeAttributes } from '../../../src/exporters/internal/otlp-proto-values.ts';
import { ProtoWriter } from '../../../src/exporters/internal/proto-writer.ts';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import { SAMPLE_CATEGORIES, sampleResourceLogBody } from '../../../scripts/local/samples.ts';
import type { ReceivedEvent } from '../../../src/backends/consumer.ts';
import { decodeLogsRequest } from '../../helpers/otlp-logs-proto.ts';
import { withoutDoubleMarks } from '../../helpers/unmarked-records.ts';

const resource = resourceFromAttributes({ 'service.name': 'enc-test', 'cloud.provider': 'azure' });
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

/** Ours against upstream's: the same request decoded with the opentelemetry-proto schema, and the same bytes. */
function assertSameAsUpstream(records: ReadableLogRecord[]): any {
  const ours = encodeLogsRequest(records);
  const upstream = ProtobufLogsSerializer.serializeRequest(records)!;
  const decoded = decodeLogsRequest(ours);
  assert.deepEqual(decoded, decodeLogsRequest(upstream));
  assert.deepEqual(Buffer.from(ours), Buffer.from(upstream));
  return decoded;
}

const attrsOf = (decoded: any, r = 0, rl = 0, sl = 0): Record<string, any> =>
  Object.fromEntries(
    decoded.resourceLogs[rl].scopeLogs[sl].logRecords[r].attributes.map((kv: any) => [kv.key, kv.value]),
  );

describe('OTLP protobuf logs encoder, against @opentelemetry/otlp-transformer and the OTLP schema', () => {
  test('realistic azure-decoded records of every sample category (many resources): the same bytes', () => {
    const decode = createDecoder({ format: 'azure' });
    const events: ReceivedEvent[] = SAMPLE_CATEGORIES.map((c, n) => ({
      body: Buffer.from(
        sampleResourceLogBody(c, { records: 1 + (n % 5), index: n, time: new Date(Date.UTC(2024, 4, 14)) }),
      ),
      sequenceNumber: n,
      offset: String(n * 512),
      enqueuedTime: new Date(Date.UTC(2024, 4, 14, 0, 0, 1)),
      partitionKey: 'pk-é',
    }));
    const { records } = decode(events, {
      namespace: 'ns.servicebus.windows.net',
      eventHubName: 'logs',
      consumerGroup: '$Default',
      partitionId: '3',
    });
    assert.ok(records.length > SAMPLE_CATEGORIES.length);
    // Upstream knows no double marks (Go's float64 numbers, pipeline/double-values.ts): compare unmarked copies.
    const decoded = assertSameAsUpstream(withoutDoubleMarks(records));
    assert.ok(decoded.resourceLogs.length > 1, 'records of several Azure resources');
    const total = decoded.resourceLogs.flatMap((rl: any) => rl.scopeLogs.flatMap((sl: any) => sl.logRecords)).length;
    assert.equal(total, records.length);
  });

  test('strings: empty, non-ASCII, lone surrogates, around the native and length-prefix thresholds', () => {
    const strings = [
      '',
      'é',
      '中文',
      '😀',
      'a\ud800',
      '\udc00b',
      'x\ud83d',
      '\ud83d\ude00\ud83d',
      'é'.repeat(48),
      'é'.repeat(49),
      'a'.repeat(47),
      'a'.repeat(48),
      'a'.repeat(49),
      'a'.repeat(127),
      'a'.repeat(128),
      'ü'.repeat(64),
      'a'.repeat(16_400),
    ];
    const records = strings.map((s, i) =>
      record({ body: s, severityText: s, eventName: s, attributes: { [s]: s, [`k${i}`]: s } }),
    );
    const decoded = assertSameAsUpstream(records);
    const logs = decoded.resourceLogs[0].scopeLogs[0].logRecords;
    assert.equal(logs[0].body.stringValue, '', 'an empty string_value is still written: AnyValue is a oneof');
    assert.equal(logs[0].severityText, undefined, 'an empty severity_text is left out');
    assert.equal(logs[4].body.stringValue, 'a\ufffd', 'a lone surrogate becomes U+FFFD');
    assert.equal(logs[5].body.stringValue, '\ufffdb');
    assert.equal(logs[7].body.stringValue, '😀\ufffd');
    assert.equal(logs[16].body.stringValue.length, 16_400);
    assert.equal(logs[3].eventName, '😀');
  });

  test('string attributes around the short key-value path: lengths 119-122, non-ASCII last in key or value', () => {
    const attributes: Record<string, string> = {};
    for (const total of [0, 1, 119, 120, 121, 122, 200]) {
      const key = `k${total}`;
      attributes[key] = 'v'.repeat(Math.max(0, total - key.length));
      // The character that sends the pair to the general path comes after the rest was copied.
      attributes[`${key}-value-é`] = `${'w'.repeat(Math.max(0, total - key.length - 10))}é`;
      attributes[`${'q'.repeat(Math.max(1, total - 10))}é`] = 'x';
    }
    const decoded = assertSameAsUpstream([record({ attributes }), record({ attributes: { '': '' } })]);
    const a = attrsOf(decoded);
    for (const [key, value] of Object.entries(attributes)) assert.equal(a[key].stringValue, value, key);
    assert.equal(attrsOf(decoded, 1)[''].stringValue, '');
  });

  test('a short string attribute written at every position up to the end of the buffer: the same bytes', () => {
    const attributes = { 'http.request.method': 'GET', 'client.address': '10.0.0.1' };
    const wide = new ProtoWriter(4096);
    writeAttributes(wide, attributes, 6);
    const expected = Buffer.from(wide.finish());
    for (let room = 0; room <= expected.length + 8; room++) {
      const w = new ProtoWriter(64);
      w.pos = Math.max(0, 64 - room);
      const from = w.pos;
      writeAttributes(w, attributes, 6);
      assert.deepEqual(Buffer.from(w.buf.subarray(from, w.pos)), expected, `${room} bytes left`);
    }
  });

  test('numbers: int64 beyond 2^53 and at the bounds, negatives, doubles, NaN, infinities, -0', () => {
    const values = {
      big: 2 ** 60,
      safe: Number.MAX_SAFE_INTEGER,
      min: -(2 ** 63),
      max: 2 ** 63,
      neg: -1,
      negBig: -(2 ** 40),
      u32: 0xffffffff,
      over32: 2 ** 32,
      half: 1.5,
      tiny: 5e-324,
      nan: Number.NaN,
      inf: Infinity,
      ninf: -Infinity,
      zero: -0,
    };
    const decoded = assertSameAsUpstream([record({ attributes: values, body: 2 ** 53 + 2 })]);
    const a = attrsOf(decoded);
    assert.equal(a.big.intValue, '1152921504606846976');
    assert.equal(a.min.intValue, '-9223372036854775808');
    assert.equal(a.max.doubleValue, 2 ** 63, '2^63 is beyond int64: a double');
    assert.equal(a.neg.intValue, '-1');
    assert.equal(a.negBig.intValue, String(-(2 ** 40)));
    assert.equal(a.half.doubleValue, 1.5);
    assert.ok(Number.isNaN(a.nan.doubleValue));
    assert.equal(a.ninf.doubleValue, -Infinity);
    assert.equal(a.zero.intValue, '0', '-0 is int_value 0');
    assert.equal(decoded.resourceLogs[0].scopeLogs[0].logRecords[0].body.intValue, '9007199254740994');
  });

  test('maps, arrays, bytes, booleans, null and undefined, nested and empty, small and large', () => {
    const deep: Record<string, unknown> = { leaf: 'x' };
    let node = deep;
    for (let i = 0; i < 20; i++)
      node = (node.child = { i, tags: [i, `t${i}`, i % 2 === 0] }) as Record<string, unknown>;
    const attributes = {
      map: { a: 1, b: 'two', c: [true, false, null, { d: new Uint8Array([1, 2, 255]) }], e: {}, f: [] },
      bigMap: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`key-${i}`, `value-${i}`])),
      list: Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? i : { n: i })),
      bytes: new Uint8Array(300).fill(7),
      empty: new Uint8Array(0),
      yes: true,
      no: false,
      nothing: null,
      missing: undefined,
      deep,
    } as unknown as ReadableLogRecord['attributes'];
    const decoded = assertSameAsUpstream([
      record({ attributes, body: { nested: { list: [1, 'a', { b: null }] } } as never }),
    ]);
    const a = attrsOf(decoded);
    assert.deepEqual(a.bytes.bytesValue, Buffer.alloc(300, 7));
    assert.equal(a.bigMap.kvlistValue.values.length, 300);
    assert.equal(
      a.map.kvlistValue.values[2].value.arrayValue.values[3].kvlistValue.values[0].value.bytesValue.toString('hex'),
      '0102ff',
    );
    assert.deepEqual(a.nothing, {}, 'null is an empty AnyValue, as upstream writes it');
    assert.equal(a.no.boolValue, false);
    assert.equal(a.yes.boolValue, true);
  });

  test('times outside (0, 2^63) ns are written 0 where upstream wraps them (1601 would read as 2062)', () => {
    const outside: ReadableLogRecord['hrTime'][] = [
      [-11_644_473_600, 0],
      [-1, 999_999_999],
      [0, 0],
      [9_223_372_036, 854_775_808],
      [18_446_744_073, 709_551_615],
      [32_503_680_000, 0],
      [Number.NaN, 0],
    ];
    const decoded = decodeLogsRequest(encodeLogsRequest(outside.map((hrTime) => record({ hrTime }))));
    const times = decoded.resourceLogs[0].scopeLogs[0].logRecords.map((l: any) => l.timeUnixNano ?? '0');
    assert.deepEqual(
      times,
      outside.map(() => '0'),
    );
    const upstream = decodeLogsRequest(
      ProtobufLogsSerializer.serializeRequest([record({ hrTime: [-11_644_473_600, 0] })])!,
    );
    const wrapped = BigInt(upstream.resourceLogs[0].scopeLogs[0].logRecords[0].timeUnixNano);
    assert.equal(new Date(Number(wrapped / 1_000_000n)).getUTCFullYear(), 2062, 'upstream wraps 1601 to 2062');
    const edge = decodeLogsRequest(
      encodeLogsRequest([record({ hrTime: [9_223_372_036, 854_775_807] }), record({ hrTime: [1, 1_500_000_000] })]),
    );
    assert.deepEqual(
      edge.resourceLogs[0].scopeLogs[0].logRecords.map((l: any) => l.timeUnixNano),
      ['9223372036854775807', '2500000000'],
    );
  });

  test('times (zero observed, far future), dropped counts, trace context, severities, event names', () => {
    const records = [
      record({ hrTime: [1, 0], hrTimeObserved: [0, 0] }),
      record({ hrTime: [1, 999_999_999], hrTimeObserved: [4_102_444_800, 999_999_999] }),
      record({
        hrTime: [9_223_372_035, 709_551_615],
        droppedAttributesCount: 300,
        severityNumber: 24,
        severityText: 'FATAL',
      }),
      record({
        spanContext: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 },
      }),
      record({
        spanContext: { traceId: '0AF7651916CD43DD8448EB211C80319C', spanId: 'B7AD6B7169203331', traceFlags: 0 },
      }),
      record({ severityNumber: undefined, severityText: undefined, body: undefined, eventName: 'checkout.done' }),
      record({ body: null as never, severityNumber: 0 }),
    ];
    const decoded = assertSameAsUpstream(records);
    const logs = decoded.resourceLogs[0].scopeLogs[0].logRecords;
    assert.equal(logs[1].observedTimeUnixNano, '4102444800999999999');
    assert.equal(logs[2].droppedAttributesCount, 300);
    assert.equal(logs[3].traceId.toString('hex'), '0af7651916cd43dd8448eb211c80319c');
    assert.equal(logs[3].flags, 1);
    assert.equal(logs[4].spanId.toString('hex'), 'b7ad6b7169203331');
    assert.equal(logs[5].eventName, 'checkout.done');
    assert.deepEqual(logs[6].body, {}, 'a null body is an empty AnyValue');
  });

  test(
    'resources and scopes: grouped by object in first-seen order, schema URLs, scope attributes, async ' + 'resources',
    () => {
      const other = resourceFromAttributes(
        { 'azure.resource.id': '/SUBSCRIPTIONS/X' },
        { schemaUrl: 'https://opentelemetry.io/schemas/1.30.0' },
      );
      const plainScope = {
        name: 's2',
        version: '',
        schemaUrl: 'https://example.com/s',
        attributes: { team: 'ops' },
        droppedAttributesCount: 2,
      };
      const pending = resourceFromAttributes({ settled: 'yes', later: Promise.resolve('v') as never });
      const records = [
        record({ body: 'r1' }),
        record({ resource: other, body: 'o1' }),
        record({ instrumentationScope: plainScope, body: 's1' }),
        record({ resource: other, instrumentationScope: plainScope, body: 'o2' }),
        record({ body: 'r2' }),
        record({ resource: resourceFromAttributes({}), body: 'empty resource' }),
      ];
      const decoded = assertSameAsUpstream(records);
      assert.deepEqual(
        decoded.resourceLogs.map((rl: any) =>
          rl.scopeLogs.map((sl: any) => sl.logRecords.map((l: any) => l.body.stringValue)),
        ),
        [[['r1', 'r2'], ['s1']], [['o1'], ['o2']], [['empty resource']]],
      );
      assert.equal(decoded.resourceLogs[1].schemaUrl, 'https://opentelemetry.io/schemas/1.30.0');
      assert.equal(decoded.resourceLogs[0].scopeLogs[1].scope.droppedAttributesCount, 2);
      // Encoded twice: the second time from the caches, the same bytes.
      assertSameAsUpstream(records);
      assert.equal(pending.asyncAttributesPending, true);
      assertSameAsUpstream([record({ resource: pending })]);
    },
  );

  test('sizes that defeat the length guesses: tiny records, one huge record, batches past 2 MiB, empty batch', () => {
    assertSameAsUpstream([]);
    assertSameAsUpstream([record({ body: '', severityText: undefined, severityNumber: undefined })]);
    assertSameAsUpstream([record({ body: 'x'.repeat(3_000_000) })]);
    const many = Array.from({ length: 3000 }, (_, i) => record({ body: `${i}:${'y'.repeat(900)}`, attributes: { i } }));
    assertSameAsUpstream(many);
    assertSameAsUpstream(many.slice(0, 3)); // after a batch of large records: the guesses are now too large
  });

  test("a request built slice by slice: upstream's bytes for all the records at once, in a buffer of its own", () => {
    const other = resourceFromAttributes({ 'azure.resource.id': '/X' }, { schemaUrl: 'https://example.com/r' });
    const otherScope = Object.freeze({ name: 's2', version: '', schemaUrl: 'https://example.com/s' });
    const all = Array.from({ length: 40 }, (_, i) =>
      record({
        body: `${i}:${'z'.repeat(i * 37)}`,
        resource: i % 3 === 1 ? other : resource,
        instrumentationScope: i % 5 === 2 ? otherScope : scope,
        attributes: { i },
      }),
    );
    const builder = new LogsRequestBuilder();
    for (const size of [1, 3, 7, 16]) {
      for (let from = 0; from < all.length; from += size) builder.add(all.slice(from, from + size));
      assert.equal(builder.records, all.length);
      const bytes = builder.finish();
      assert.equal(builder.records, 0);
      assert.deepEqual(bytes, Buffer.from(ProtobufLogsSerializer.serializeRequest(all)!), `slices of ${size}`);
      // Transferable as it is: the whole of its own memory.
      assert.equal(bytes.byteOffset, 0);
      assert.equal(bytes.buffer.byteLength, bytes.length);
    }
    builder.add(all.slice(0, 2));
    builder.reset();
    builder.add(all.slice(5, 6));
    assert.deepEqual(builder.finish(), Buffer.from(ProtobufLogsSerializer.serializeRequest(all.slice(5, 6))!));
  });

  test('a record that fails to encode fails its request only: the next one holds none of it', () => {
    const broken = record({ body: 'broken' });
    Object.defineProperty(broken, 'attributes', {
      get() {
        throw new Error('attributes unreadable');
      },
    });
    assert.throws(() => encodeLogsRequest([record({ body: 'before' }), broken]), /attributes unreadable/);
    assertSameAsUpstream([record({ body: 'after' })]);
  });

  test('the serializer: requests through the encoder, responses through upstream', () => {
    const records = [record()];
    assert.deepEqual(
      Buffer.from(OtlpProtoLogsSerializer.serializeRequest(records)!),
      Buffer.from(ProtobufLogsSerializer.serializeRequest(records)!),
    );
    // ExportLogsServiceResponse.partial_success (1) { rejected_log_records (1) = 3, error_message (2) = "no" }
    const response = Uint8Array.from([0x0a, 0x06, 0x08, 0x03, 0x12, 0x02, 0x6e, 0x6f]);
    assert.deepEqual(
      OtlpProtoLogsSerializer.deserializeResponse(response),
      ProtobufLogsSerializer.deserializeResponse(response),
    );
  });
});
