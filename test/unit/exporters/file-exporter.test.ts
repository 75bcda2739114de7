import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileExporterFactory } from '../../../src/exporters/factories.ts';
import { fileExporterConfigSchema } from '../../../src/exporters/file-exporter.ts';
import { noopLogger } from '../../../src/component/logger.ts';
import { makeBatch } from '../pipeline/records.ts';
import { ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import { SAMPLE_CATEGORIES, sampleResourceLogBody } from '../../../scripts/local/samples.ts';
import { strictDecodeJson, strictDecodeProto } from '../../helpers/otlp-strict.ts';
import { mixedBatch } from './signal-items.ts';
import { withoutDoubleMarks } from '../../helpers/unmarked-records.ts';

const settings = { id: 'file', logger: noopLogger };

describe('file exporter', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  async function tempDir(): Promise<string> {
    const d = await mkdtemp(join(tmpdir(), 'file-exporter-'));
    dirs.push(d);
    return d;
  }

  test('writes one OTLP/JSON ExportLogsServiceRequest per line, readable back', async () => {
    const path = join(await tempDir(), 'nested', 'logs.jsonl');
    const exporter = await fileExporterFactory.create(settings, fileExporterConfigSchema.parse({ path }));
    await exporter.consume(makeBatch(2, 'first'));
    await exporter.consume(makeBatch(1, 'second'));
    await exporter.shutdown!();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    assert.equal(lines.length, 2);
    const request = JSON.parse(lines[0]!);
    const resourceLogs = request.resourceLogs[0];
    assert.deepEqual(
      resourceLogs.resource.attributes.find((a: any) => a.key === 'service.name'),
      { key: 'service.name', value: { stringValue: 'eventhub-test' } },
    );
    const records = resourceLogs.scopeLogs[0].logRecords;
    assert.equal(resourceLogs.scopeLogs[0].scope.name, 'azure_event_hub');
    assert.deepEqual(
      records.map((r: any) => r.body.stringValue),
      ['first-0', 'first-1'],
    );
    assert.equal(records[0].timeUnixNano, '1700000000123000000');
    assert.equal(records[0].severityNumber, 9);
    assert.deepEqual(
      records[1].attributes,
      [{ key: 'test.index', value: { intValue: '1' } }],
      'int64 as a decimal string (OTLP/JSON)',
    );
    assert.equal(JSON.parse(lines[1]!).resourceLogs[0].scopeLogs[0].logRecords[0].body.stringValue, 'second-0');
  });

  test('proto format: length-prefixed protobuf requests', async () => {
    const path = join(await tempDir(), 'logs.bin');
    const exporter = await fileExporterFactory.create(
      settings,
      fileExporterConfigSchema.parse({ path, format: 'proto', sync: false }),
    );
    await exporter.consume(makeBatch(1, 'proto-body'));
    await exporter.consume(makeBatch(1, 'again'));
    const bytes = await readFile(path);
    const first = bytes.readUInt32BE(0);
    const second = bytes.readUInt32BE(4 + first);
    assert.equal(4 + first + 4 + second, bytes.byteLength);
    assert.ok(bytes.subarray(4, 4 + first).includes(Buffer.from('proto-body-0')));
  });

  test("proto format: each request is upstream ProtobufLogsSerializer's bytes for a sample batch", async () => {
    const decode = createDecoder({ format: 'azure' });
    const events = SAMPLE_CATEGORIES.map((category, n) => ({
      body: Buffer.from(sampleResourceLogBody(category, { records: 3, index: n })),
      sequenceNumber: n,
      offset: String(n * 1024),
      enqueuedTime: new Date(),
      partitionKey: 'clé-😀',
    }));
    const context = {
      namespace: 'ns.servicebus.windows.net',
      eventHubName: 'logs',
      consumerGroup: '$Default',
      partitionId: '3',
    };
    // Upstream knows no double marks (Go's float64 numbers, pipeline/double-values.ts): compare unmarked copies.
    const sent = withoutDoubleMarks(decode(events, context).records);
    const path = join(await tempDir(), 'sample.bin');
    const exporter = await fileExporterFactory.create(
      settings,
      fileExporterConfigSchema.parse({ path, format: 'proto', sync: false }),
    );
    await exporter.consume({ records: sent, source: makeBatch(0).source });
    await exporter.shutdown!();
    const bytes = await readFile(path);
    const upstream = Buffer.from(ProtobufLogsSerializer.serializeRequest(sent)!);
    assert.equal(bytes.readUInt32BE(0), upstream.byteLength);
    assert.ok(bytes.subarray(4).equals(upstream));
  });

  test('metrics and traces: one JSON line per request, told apart by the top-level key; strict OTLP/JSON', async () => {
    const path = join(await tempDir(), 'all.jsonl');
    const exporter = await fileExporterFactory.create(settings, fileExporterConfigSchema.parse({ path, sync: false }));
    await exporter.consume(mixedBatch(1, 3, 2));
    await exporter.consume(mixedBatch(0, 0, 1));
    await exporter.shutdown!();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    assert.deepEqual(
      lines.map((l) => Object.keys(JSON.parse(l))),
      [['resourceLogs'], ['resourceMetrics'], ['resourceSpans'], ['resourceSpans']],
    );
    const metrics = strictDecodeJson(Buffer.from(lines[1]!), 'metrics');
    assert.deepEqual(
      metrics.resourceMetrics[0].scopeMetrics[0].metrics[0].gauge.dataPoints.map((p: any) => p.asDouble ?? 0),
      [0, 1, 2],
      'as_double 0 is the default, left out',
    );
    const spans = strictDecodeJson(Buffer.from(lines[2]!), 'traces');
    assert.deepEqual(
      spans.resourceSpans[0].scopeSpans[0].spans.map((s: any) => s.name),
      ['span-0', 'span-1'],
    );
  });

  test('metrics and traces in proto format: length-prefixed requests in the order logs, metrics, traces', async () => {
    const path = join(await tempDir(), 'all.bin');
    const exporter = await fileExporterFactory.create(
      settings,
      fileExporterConfigSchema.parse({ path, format: 'proto', sync: false }),
    );
    await exporter.consume(mixedBatch(0, 2, 1));
    await exporter.shutdown!();
    const bytes = await readFile(path);
    const first = bytes.readUInt32BE(0);
    const second = bytes.readUInt32BE(4 + first);
    assert.equal(4 + first + 4 + second, bytes.byteLength, 'two requests');
    assert.equal(
      strictDecodeProto(bytes.subarray(4, 4 + first), 'metrics').resourceMetrics[0].scopeMetrics[0].metrics[0].gauge
        .dataPoints.length,
      2,
    );
    assert.equal(
      strictDecodeProto(bytes.subarray(8 + first), 'traces').resourceSpans[0].scopeSpans[0].spans[0].name,
      'span-0',
    );
  });

  test('rotates by size and keeps max_backups rotated files', async () => {
    const dir = await tempDir();
    const path = join(dir, 'out.json');
    // ~1 KiB limit: each batch line is several hundred bytes, so every second batch or so rotates.
    const exporter = await fileExporterFactory.create(
      settings,
      fileExporterConfigSchema.parse({ path, rotation: { max_megabytes: 1 / 1024, max_backups: 2 } }),
    );
    for (let i = 0; i < 12; i++) await exporter.consume(makeBatch(2, `b${i}`));
    await exporter.shutdown!();
    const files = (await readdir(dir)).sort();
    const backups = files.filter((f) => /^out-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.json$/.test(f));
    assert.equal(backups.length, 2, files.join(', '));
    assert.ok(files.includes('out.json'));
    for (const f of [...backups, 'out.json']) {
      for (const line of (await readFile(join(dir, f), 'utf8')).trimEnd().split('\n')) JSON.parse(line);
    }
    const current = (await readFile(path, 'utf8')).trimEnd().split('\n');
    assert.match(JSON.parse(current.at(-1)!).resourceLogs[0].scopeLogs[0].logRecords[0].body.stringValue, /^b11-0$/);
  });

  test('config: path required, unknown keys rejected, rotation defaults as the collector', () => {
    assert.equal(fileExporterConfigSchema.safeParse({}).success, false);
    assert.equal(fileExporterConfigSchema.safeParse({ path: 'x', flush_intervall: '1s' }).success, false);
    assert.deepEqual(fileExporterConfigSchema.parse({ path: 'x', rotation: {} }).rotation, {
      max_megabytes: 100,
      max_days: 0,
      max_backups: 100,
      localtime: false,
    });
    assert.equal(fileExporterConfigSchema.parse({ path: 'x' }).rotation, undefined);
  });
});
