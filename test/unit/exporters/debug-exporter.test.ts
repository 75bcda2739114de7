import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createDebugExporterFactory, debugExporterConfigSchema } from '../../../src/exporters/debug-exporter.ts';
import { noopLogger } from '../../../src/component/logger.ts';
import { makeBatch } from '../pipeline/records.ts';

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

async function run(verbosity: string, extra: Record<string, unknown> = {}, batch = makeBatch(2, 'hello')): Promise<string> {
  const c = capture();
  const exporter = await createDebugExporterFactory(c.stream).create(settings, debugExporterConfigSchema.parse({ verbosity, ...extra }));
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
});
