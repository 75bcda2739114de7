import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { JsonLogsSerializer, ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import { SAMPLE_CATEGORIES, sampleResourceLogBody, type SampleCategory } from '../../../scripts/local/samples.ts';
import {
  FIXTURE_CONTEXT,
  FIXTURE_DIR,
  FIXTURE_OBSERVED_MS,
  FIXTURE_SAMPLE_OPTIONS,
  fixtureEvent,
  hrTimeToIso,
  normalizedJson,
} from '../../fixtures/decode/fixture-support.ts';

const decode = createDecoder({ format: 'azure', now: () => FIXTURE_OBSERVED_MS });
const input = (c: SampleCategory) => readFileSync(join(FIXTURE_DIR, `${c}.input.json`), 'utf8');
const decodeFixture = (c: SampleCategory) => decode([fixtureEvent(input(c).trimEnd())], FIXTURE_CONTEXT);

/**
 * What each category must show, written from Azure's documented fields and the Go receiver's default rules
 * (not from the decoder's output): no body; severity from Level by Go's rule (only Informational, Warning,
 * Error, Critical are names; a number is the severity number as is: `"4"` is TRACE4; `Information` is none).
 */
const EXPECT: Record<
  SampleCategory,
  { category: string; severity?: SeverityNumber; attributes?: Record<string, unknown> }
> = {
  'activity-administrative': {
    category: 'Administrative',
    severity: SeverityNumber.UNSPECIFIED,
    attributes: {
      'azure.operation.name': 'MICROSOFT.COMPUTE/VIRTUALMACHINES/WRITE',
      'azure.result.type': 'Start',
      'cloud.region': 'global',
    },
  },
  'activity-policy': { category: 'Policy', severity: SeverityNumber.WARN },
  'keyvault-audit': {
    category: 'AuditEvent',
    attributes: {
      'azure.operation.name': 'SecretGet',
      'azure.result.signature': 'OK',
      'azure.duration': 40,
      'net.sock.peer.addr': '10.20.1.2',
    },
  },
  'appservice-http': {
    category: 'AppServiceHTTPLogs',
    attributes: { 'azure.operation.name': 'Microsoft.Web/sites/log' },
  },
  'appservice-console': { category: 'AppServiceConsoleLogs', severity: SeverityNumber.INFO },
  functions: { category: 'FunctionAppLogs', severity: SeverityNumber.INFO },
  'storage-read': {
    category: 'StorageRead',
    attributes: {
      'azure.operation.name': 'GetBlob',
      'azure.statusCode': 200,
      'azure.uri': 'https://stshopprod.blob.core.windows.net:443/invoices/2024/05/invoice-1000.json',
      'net.sock.peer.addr': '10.10.4.2:49152',
    },
  },
  'storage-write': {
    category: 'StorageWrite',
    attributes: { 'azure.operation.name': 'PutBlob', 'azure.statusCode': 201, 'azure.protocol': 'HTTPS' },
  },
  'sql-audit': {
    category: 'SQLSecurityAuditEvents',
    attributes: {
      'azure.LogicalServerName': 'sql-shop-prod',
      'azure.originalEventTimestamp': '2024-05-14T09:30:00.2500000Z',
    },
  },
  'aks-kube-audit': { category: 'kube-audit', attributes: { 'azure.Cloud': 'AzureCloud' } },
  'nsg-flow-event': { category: 'NetworkSecurityGroupFlowEvent', attributes: { 'azure.macAddress': '000D3AF87856' } },
  firewall: { category: 'AzureFirewallNetworkRule' },
  'frontdoor-access': {
    category: 'FrontDoorAccessLog',
    attributes: { 'azure.operation.name': 'Microsoft.Cdn/Profiles/AccessLog/Write' },
  },
  'appgateway-access': {
    category: 'ApplicationGatewayAccessLog',
    attributes: { 'azure.listenerName': 'listener-https' },
  },
  'entra-signin': {
    category: 'SignInLogs',
    severity: SeverityNumber.TRACE4,
    attributes: {
      'azure.tenant.id': '72f988bf-86f1-41af-91ab-2d7cd011db47',
      'azure.identity': 'Jane Doe',
      'azure.result.type': '0',
    },
  },
  'defender-alert': {
    category: 'Security',
    severity: SeverityNumber.FATAL,
    attributes: { 'azure.result.type': 'Active' },
  },
  'cosmosdb-data-plane': { category: 'DataPlaneRequests', attributes: { 'azure.operation.name': 'Read' } },
  'eventhubs-operational': {
    category: 'OperationalLogs',
    attributes: { 'azure.EventName': 'Create EventHub', 'azure.Status': 'Succeeded' },
  },
};

/** Decodes an OTLP JSON AnyValue back into a plain value. */
function fromOtlp(v: Record<string, any>): unknown {
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('bytesValue' in v) return new Uint8Array(Buffer.from(v.bytesValue, 'base64'));
  if ('arrayValue' in v) return (v.arrayValue.values ?? []).map(fromOtlp);
  if ('kvlistValue' in v)
    return Object.fromEntries((v.kvlistValue.values ?? []).map((kv: any) => [kv.key, fromOtlp(kv.value)]));
  return null;
}
const fromOtlpAttributes = (list: any[] = []) => Object.fromEntries(list.map((kv) => [kv.key, fromOtlp(kv.value)]));

describe('fixtures: 18 Azure resource-log categories', () => {
  test('there are at least 15 categories and every input file is the sample the product ships', () => {
    assert.ok(SAMPLE_CATEGORIES.length >= 15);
    for (const c of SAMPLE_CATEGORIES)
      assert.equal(input(c), `${sampleResourceLogBody(c, FIXTURE_SAMPLE_OPTIONS)}\n`, c);
  });

  for (const category of SAMPLE_CATEGORIES) {
    test(`${category}: decodes to the expected records`, () => {
      const { records, stats } = decodeFixture(category);
      const expected = readFileSync(join(FIXTURE_DIR, `${category}.expected.json`), 'utf8');
      assert.equal(normalizedJson(records), expected);
      assert.equal(records.length, 2);
      assert.equal(stats.failedEvents, 0);
      assert.equal(stats.timestampFallbacks, 0);
      assert.equal(stats.sanitizedEvents, category === 'functions' ? 1 : 0);

      const want = EXPECT[category];
      const [first] = records as [ReadableLogRecord];
      assert.equal(first.attributes['azure.category'], want.category);
      assert.equal(first.attributes['error.type'], undefined);
      assert.equal(first.attributes['azure.timestamp.fallback'], undefined);
      assert.match(
        String(first.resource.attributes['azure.resource.id']),
        /^\/(subscriptions|SUBSCRIPTIONS|tenants)\//,
      );
      assert.equal(first.severityNumber ?? SeverityNumber.UNSPECIFIED, want.severity ?? SeverityNumber.UNSPECIFIED);
      assert.equal(first.body, undefined, "the Go receiver's default translator sets no body");
      for (const [key, value] of Object.entries(want.attributes ?? {}))
        assert.deepEqual(first.attributes[key], value, key);
      const sampleTime = hrTimeToIso(first.hrTime as [number, number]);
      assert.match(
        sampleTime,
        /^2024-05-14T09:30:00\.(250000000|000000000)Z$/,
        "the record's own time, not the enqueued time",
      );
    });

    test(`${category}: every field survives an OTLP JSON export`, () => {
      const { records } = decodeFixture(category);
      const request = JSON.parse(Buffer.from(JsonLogsSerializer.serializeRequest(records)!).toString('utf8'));
      const exported = request.resourceLogs.flatMap((rl: any) =>
        rl.scopeLogs.flatMap((sl: any) => sl.logRecords.map((lr: any) => ({ rl, sl, lr }))),
      );
      assert.equal(exported.length, records.length);
      assert.equal(
        request.resourceLogs.length,
        new Set(records.map((r) => r.resource)).size,
        'one ResourceLogs per Azure resource',
      );
      for (const { rl, sl, lr } of exported) {
        const original = records.find(
          (r) => JSON.stringify(fromOtlpAttributes(lr.attributes)) === JSON.stringify(r.attributes),
        );
        assert.ok(original, 'attributes, nested maps and arrays included, come back unchanged');
        assert.equal(
          lr.timeUnixNano,
          (BigInt(original.hrTime[0]) * 1_000_000_000n + BigInt(original.hrTime[1])).toString(),
        );
        assert.equal(lr.severityNumber, original.severityNumber);
        assert.equal(lr.severityText, original.severityText);
        assert.deepEqual(lr.body ? fromOtlp(lr.body) : null, original.body === undefined ? null : original.body);
        assert.deepEqual(fromOtlpAttributes(rl.resource.attributes), original.resource.attributes);
        assert.equal(sl.scope.name, 'github.com/open-telemetry/opentelemetry-collector-contrib/pkg/translator/azure');
      }
    });
  }

  test('every category serializes to OTLP protobuf too (the http/proto and grpc exporters)', () => {
    for (const c of SAMPLE_CATEGORIES) {
      const bytes = ProtobufLogsSerializer.serializeRequest(decodeFixture(c).records);
      assert.ok(bytes && bytes.length > 500, c);
    }
  });

  test('every category also decodes with apply_semantic_conventions, without errors or fallbacks', () => {
    const semconv = createDecoder({ format: 'azure', applySemanticConventions: true });
    for (const c of SAMPLE_CATEGORIES) {
      const { records, stats } = semconv([fixtureEvent(input(c))], FIXTURE_CONTEXT);
      assert.equal(records.length, 2, c);
      assert.deepEqual(
        stats,
        { failedEvents: 0, sanitizedEvents: c === 'functions' ? 1 : 0, timestampFallbacks: 0 },
        c,
      );
      assert.ok(records[0]!.resource.attributes['cloud.resource_id'], c);
    }
  });
});
