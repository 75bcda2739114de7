import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createDebugExporterFactory, debugExporterConfigSchema } from '../../../src/exporters/debug-exporter.ts';
import { noopLogger } from '../../../src/component/logger.ts';
import { makeBatch } from '../pipeline/records.ts';
import { makePoint, makeSpan, mixedBatch } from './signal-items.ts';

const settings = { id: 'debug', logger: noopLogger };

function capture(): { stream: Writable; text: () => string; pending: (() => void)[] } {
  let out = '';
  const pending: (() => void)[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out += chunk.toString();
      pending.push(() => cb());
    },
  });
  return { stream, text: () => out, pending };
}

async function run(
  verbosity: string,
  extra: Record<string, unknown> = {},
  batch = makeBatch(2, 'hello'),
): Promise<string> {
  const c = capture();
  const exporter = await createDebugExporterFactory(c.stream).create(
    settings,
    debugExporterConfigSchema.parse({ verbosity, ...extra }),
  );
  const done = exporter.consume(batch);
  await new Promise((r) => setImmediate(r));
  c.pending.forEach((f) => f());
  await done;
  return c.text();
}

describe('debug exporter', () => {
  test('basic: one summary line per batch', async () => {
    const text = await run('basic');
    assert.equal(text, 'Logs\t{"resource logs":1,"log records":2,"partition":"0"}\n');
  });

  test('normal: one line per record with its attributes', async () => {
    const lines = (await run('normal')).trimEnd().split('\n');
    assert.deepEqual(lines.slice(1), ['hello-0 test.index=0', 'hello-1 test.index=1']);
  });

  test('detailed: resource, scope, every field', async () => {
    const text = await run('detailed');
    assert.match(text, /Resource attributes:\n {5}-> cloud\.provider: Str\(azure\)/);
    assert.match(text, /InstrumentationScope azure_event_hub 0\.1\.0/);
    assert.match(text, /LogRecord #1\n/);
    assert.match(text, /Timestamp: 2023-11-14 22:13:20\.123000000 \+0000 UTC/);
    assert.match(text, /SeverityNumber: Info\(9\)/);
    assert.match(text, /Body: Str\(hello-0\)/);
    assert.match(text, /-> test\.index: Int\(1\)/);
  });

  test('compact: one line per record (time, severity, category, body), cut to line_width', async () => {
    const batch = makeBatch(2, 'x'.repeat(300));
    const first = batch.records[0]! as { attributes: Record<string, unknown> };
    first.attributes['azure.category'] = 'AuditEvent';
    const lines = (await run('compact', { line_width: 80 }, batch)).trimEnd().split('\n');
    assert.equal(lines.length, 2, 'no batch summary line, one line per record');
    assert.match(lines[0]!, /^22:13:20\.123 INFO {2}AuditEvent {15}xxx/);
    for (const line of lines) assert.equal(line.length, 80, line);
    assert.ok(lines[0]!.endsWith('…'));
    assert.throws(() => debugExporterConfigSchema.parse({ verbosity: 'compact', line_width: 5 }));
  });

  test(
    'detailed: numbers and times as the OTLP encoders write them (int64 or double; out-of-range time ' + '0)',
    async () => {
      const c = capture();
      const exporter = await createDebugExporterFactory(c.stream).create(
        settings,
        debugExporterConfigSchema.parse({ verbosity: 'detailed' }),
      );
      const batch = makeBatch(1);
      const base = batch.records[0]!;
      const record = {
        ...base,
        hrTime: [-11_644_473_600, 0] as [number, number],
        attributes: { e20: 1e20, min: -(2 ** 63), half: 0.5, lone: 'a\ud83d' },
      };
      const done = exporter.consume({ ...batch, records: [record] });
      await new Promise((r) => setImmediate(r));
      c.pending.forEach((f) => f());
      await done;
      const text = c.text();
      assert.match(text, /-> e20: Double\(100000000000000000000\)/);
      assert.match(text, /-> min: Int\(-9223372036854775808\)/);
      assert.match(text, /-> half: Double\(0\.5\)/);
      assert.match(text, /-> lone: Str\(a\ufffd\)/, 'the stream writes UTF-8: a lone surrogate is U+FFFD');
      assert.match(text, /\nTimestamp: 1970-01-01 00:00:00\.000000000 \+0000 UTC/);
    },
  );

  test('acknowledges only after the write callback', async () => {
    const c = capture();
    const exporter = await createDebugExporterFactory(c.stream).create(settings, debugExporterConfigSchema.parse({}));
    let acked = false;
    const done = exporter.consume(makeBatch(1)).then(() => (acked = true));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(acked, false);
    c.pending.forEach((f) => f());
    await done;
    assert.equal(acked, true);
  });

  test('config: verbosity default basic, unknown keys rejected', () => {
    assert.equal(debugExporterConfigSchema.parse({}).verbosity, 'basic');
    assert.equal(debugExporterConfigSchema.safeParse({ verbosity: 'loud' }).success, false);
    assert.equal(debugExporterConfigSchema.safeParse({ colour: true }).success, false);
  });

  test('metrics and traces: a summary line per signal at basic; logs only when the batch has records', async () => {
    assert.equal(
      await run('basic', {}, mixedBatch(0, 3, 2)),
      'Metrics\t{"resource metrics":1,"metrics":1,"data points":3,"partition":"0"}\n' +
        'Traces\t{"resource spans":1,"spans":2,"partition":"0"}\n',
    );
    assert.match(await run('basic', {}, mixedBatch(1, 1, 0)), /^Logs\t.*\nMetrics\t/);
  });

  test('metrics and traces at normal: one line per point (name{attributes} value) and per span', async () => {
    const lines = (await run('normal', {}, mixedBatch(0, 2, 1))).trimEnd().split('\n');
    assert.deepEqual(lines.slice(1, 3), [
      'azure_percentage_cpu_average{index=0} 0',
      'azure_percentage_cpu_average{index=1} 1',
    ]);
    assert.equal(
      lines[4],
      'span-0 0af7651916cd43dd8448eb211c80319c 0000000000000001 http.response.status_code=200 url.path=/api/orders',
    );
  });

  test('metrics and traces at detailed: descriptor, data points, span fields, events and links', async () => {
    const batch = {
      ...mixedBatch(0, 0, 0),
      metrics: [makePoint()],
      spans: [
        makeSpan({
          parentSpanId: '00f067aa0ba902b7',
          kind: 3 as const,
          status: { code: 2 as const, message: 'boom' },
          events: [
            { time: [1_700_000_000, 0] as [number, number], name: 'exception', attributes: { 'exception.type': 'E' } },
          ],
          links: [{ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', attributes: {} }],
        }),
      ],
    };
    const text = await run('detailed', {}, batch);
    assert.match(
      text,
      new RegExp(
        String.raw`Descriptor:\n {5}-> Name: azure_percentage_cpu_average\n {5}-> Description: \n {5}->` +
          String.raw` Unit: Percent\n {5}-> DataType: Gauge`,
      ),
    );
    assert.match(
      text,
      new RegExp(
        String.raw`NumberDataPoints #0\nData point attributes:\n {5}-> azure\.timegrain: Str\(PT1M\)\n` +
          String.raw`StartTimestamp: 2023-11-14 22:13:20\.000000000 \+0000 UTC\n` +
          String.raw`Timestamp: 2023-11-14 22:14:20\.000000000 \+0000 UTC\nValue: 12\.5`,
      ),
    );
    assert.match(text, /Parent ID {6}: 00f067aa0ba902b7\n/);
    assert.match(text, /Kind {11}: Client\n/);
    assert.match(text, /Status code {4}: Error\n {4}Status message : boom/);
    assert.match(text, /-> http\.response\.status_code: Int\(200\)/);
    assert.match(text, /SpanEvent #0\n {5}-> Name: exception/);
    assert.match(text, /SpanLink #0\n {5}-> Trace ID: 4bf92f3577b34da6a3ce929d0e0e4736/);
  });

  test('metrics and traces at compact: one line per point and per span, cut to line_width', async () => {
    const lines = (await run('compact', { line_width: 200 }, mixedBatch(0, 1, 1))).trimEnd().split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /^22:14:20\.000 METRIC azure_percentage_cpu_average +0 \{index=0\}$/);
    assert.match(lines[1]!, /^22:13:20\.500 SPAN +span-0 +server 750\.0 ms Unset$/);
  });
});
