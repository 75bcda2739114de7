/**
 * The Go collector's current config conventions: `::` key paths (in --set and in document keys),
 * --config provider URIs, ${file:...}, and service.telemetry in the readers layout.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../src/component/errors.ts';
import { loadConfig } from '../../../src/config/load-config.ts';
import { expandDelimitedKeys } from '../../../src/config/key-path.ts';
import { parseSetOverride } from '../../../src/config/set-override.ts';
import { telemetrySchema } from '../../../src/config/telemetry-config.ts';

async function tempDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'collector-layout-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function loadIssues(configs: string[], env: Record<string, string> = {}): Promise<string> {
  try {
    await loadConfig({ configs, env });
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.message;
  }
  assert.fail('loaded');
}

describe('key paths', () => {
  test('--set splits on :: when present (dots stay in keys), else on .', () => {
    assert.deepEqual(parseSetOverride('receivers::azure_event_hub::max_poll_events=7'), {
      path: ['receivers', 'azure_event_hub', 'max_poll_events'],
      value: 7,
    });
    assert.deepEqual(parseSetOverride('exporters::otlphttp/a.b::endpoint=http://x:1'), {
      path: ['exporters', 'otlphttp/a.b', 'endpoint'],
      value: 'http://x:1',
    });
    assert.deepEqual(parseSetOverride('receivers.azure_event_hub.group=audit'), {
      path: ['receivers', 'azure_event_hub', 'group'],
      value: 'audit',
    });
    assert.deepEqual(parseSetOverride('receivers::::group=x'), {
      error: "--set 'receivers::::group': empty segment in the key path",
    });
  });

  test('document keys written with :: nest and merge with their siblings', () => {
    assert.deepEqual(
      expandDelimitedKeys({
        'exporters::debug::verbosity': 'basic',
        exporters: { debug: { sampling_initial: 2 }, file: { path: 'x' } },
      }),
      {
        exporters: { debug: { verbosity: 'basic', sampling_initial: 2 }, file: { path: 'x' } },
      },
    );
    assert.deepEqual(expandDelimitedKeys({ list: [{ 'a::b': 1 }] }), { list: [{ a: { b: 1 } }] });
  });
});

describe('--config providers', () => {
  test('file:, a plain path, env: and yaml: merge in order, later wins', async (t) => {
    const dir = await tempDir(t);
    await writeFile(join(dir, 'a.yaml'), 'receivers:\n  r:\n    group: a\n    partition: "1"\n');
    await writeFile(join(dir, 'b.yaml'), 'receivers:\n  r:\n    group: b\n');
    const loaded = await loadConfig({
      configs: [
        `file:${join(dir, 'a.yaml')}`,
        join(dir, 'b.yaml'),
        'env:EXTRA',
        'yaml:receivers::r::max_poll_events: 7',
      ],
      env: { EXTRA: 'receivers:\n  r:\n    group: from-env\n' },
    });
    assert.deepEqual(loaded.raw, { receivers: { r: { group: 'from-env', partition: '1', max_poll_events: 7 } } });
  });

  test('an unset env: variable, a bad name and an unavailable provider are each named', async () => {
    const text = await loadIssues(['env:NOT_SET', 'env:1X', 'https://example.com/c.yaml', 'file:/nonexistent/c.yaml']);
    assert.match(
      text,
      /--config env:NOT_SET: environment variable NOT_SET is not set; it should hold the config's YAML/,
    );
    assert.match(text, /--config env:1X: '1X' is not an environment variable name/);
    assert.match(
      text,
      /--config https:\.\.\.: the 'https' provider is not available; use file:<path>, env:<VAR> or yaml:<document>/,
    );
    assert.match(text, /\/nonexistent\/c\.yaml: cannot read the config file \(no such file\)/);
  });

  test(
    '${file:path} is the file without its final line break; a missing file names the reference, not a ' + 'content',
    async (t) => {
      const dir = await tempDir(t);
      await writeFile(join(dir, 'conn.txt'), 'Endpoint=sb://ns/;SharedAccessKeyName=k;SharedAccessKey=s3cr3t\n');
      await writeFile(join(dir, 'n.txt'), '42\n');
      const loaded = await loadConfig({
        configs: [`yaml:{r: {connection: "\${file:${join(dir, 'conn.txt')}}", n: "\${file:${join(dir, 'n.txt')}}"}}`],
      });
      assert.deepEqual(loaded.raw, {
        r: { connection: 'Endpoint=sb://ns/;SharedAccessKeyName=k;SharedAccessKey=s3cr3t', n: 42 },
      });
      const text = await loadIssues(['yaml:{r: {connection: "${file:/nonexistent/secret.txt}"}}']);
      assert.match(
        text,
        /r\.connection: cannot read the file of \$\{file:\/nonexistent\/secret\.txt\} \(no such file\)/,
      );
    },
  );
});

describe('service.telemetry', () => {
  const parse = (input: unknown) => telemetrySchema.parse(input);

  test('a pull/prometheus reader sets the metrics endpoint; address (the older form) still works', () => {
    const readers = [{ pull: { exporter: { prometheus: { host: '0.0.0.0', port: 9464 } } } }];
    assert.equal(parse({ metrics: { readers } }).metrics.address, '0.0.0.0:9464');
    assert.equal(
      parse({ metrics: { readers: [{ pull: { exporter: { prometheus: { host: '::1', port: 0 } } } }] } }).metrics
        .address,
      '[::1]:0',
    );
    assert.equal(parse({ metrics: { address: '127.0.0.1:0' } }).metrics.address, '127.0.0.1:0');
    assert.equal(parse({}).metrics.address, '127.0.0.1:8888');
    assert.equal(parse({ metrics: { readers: [] } }).metrics.level, 'none');
  });

  test('push readers, two readers, and readers with address are refused with what to write', () => {
    const fail = (input: unknown) => {
      const r = telemetrySchema.safeParse(input);
      assert.ok(!r.success);
      return r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n');
    };
    const pull = { pull: { exporter: { prometheus: { port: 1 } } } };
    assert.match(
      fail({ metrics: { readers: [{ periodic: { exporter: { otlp: {} } } }] } }),
      /metrics\.readers\.0\.periodic: periodic \(push\) readers are not supported.*use pull/,
    );
    assert.match(fail({ metrics: { readers: [pull, pull] } }), /metrics\.readers: only one reader/);
    assert.match(
      fail({ metrics: { readers: [pull], address: '127.0.0.1:1' } }),
      /metrics\.address: give readers or address, not both/,
    );
  });

  test('logs: level in any case (panic and fatal mean error), encoding; options with no effect are warnings', () => {
    const t = parse({ logs: { level: 'DEBUG', encoding: 'console' } });
    assert.deepEqual(t.logs, { level: 'debug', encoding: 'console' });
    assert.equal(parse({ logs: { level: 'fatal' } }).logs.level, 'error');
    const w = parse({
      logs: { sampling: { initial: 1 }, output_paths: ['stdout'] },
      traces: { level: 'basic' },
    }).warnings;
    assert.deepEqual(w, [
      'logs.sampling: ignored; log lines are written as configured by level and encoding',
      'logs.output_paths: ignored; log lines always go to stderr',
      'traces: ignored; this distribution does not trace itself',
    ]);
    assert.deepEqual(parse({ logs: { output_paths: ['stderr'] } }).warnings, []);
  });
});
