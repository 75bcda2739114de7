/**
 * What `validate` and `run` say about a config: every gap of issue 12 exits 2 with a dotted path and a
 * sentence (no library wording, no secret), an unset variable behind a bad value is named, ignored keys
 * are warned about at validate and logged at start, and a misspelled command gets a suggestion.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { main } from '../../../src/distribution/cli.ts';
import type { CliIo } from '../../../src/distribution/cli-io.ts';
import { builtinComponents } from '../../../src/distribution/builtin-components.ts';
import type { Components } from '../../../src/distribution/components.ts';
import { testComponents } from './fake-components.ts';

const KEY = 'bWVzc2FnZXMta2V5';
const HUB = `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=${KEY};EntityPath=h`;

async function cli(
  argv: string[],
  env: Record<string, string> = {},
  components: Components = testComponents().components,
) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t), env, components };
  const code = await main(argv, io);
  assert.ok(!`${out.join('')}${err.join('')}`.includes(KEY), 'the key is never printed');
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A one-receiver config with `receiver` merged into the receiver's section, as inline YAML (JSON). */
function config(receiver: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return `yaml:${JSON.stringify({
    receivers: { azure_event_hub: { connection: HUB, ...receiver } },
    exporters: { debug: {} },
    service: { pipelines: { logs: { receivers: ['azure_event_hub'], exporters: ['debug'] } } },
    ...extra,
  })}`;
}

describe('validation gaps: each exits 2 with its path and a human message', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      'start_position: yesterday',
      { start_position: 'yesterday' },
      /receivers\.azure_event_hub\.start_position: 'yesterday' is not latest, earliest/,
    ],
    [
      'a malformed storage connection string',
      { blob_checkpoint_store: { connection: 'AccountName=acct;garbage', container_name: 'cps' } },
      /receivers\.azure_event_hub\.blob_checkpoint_store\.connection: is not a connection string/,
    ],
    [
      'Endpoint=notaurl',
      { connection: `Endpoint=notaurl;SharedAccessKeyName=k;SharedAccessKey=${KEY};EntityPath=h` },
      /receivers\.azure_event_hub\.connection: has an Endpoint that is not a URL/,
    ],
    [
      'retry_on_failure.max_interval below initial_interval',
      { retry_on_failure: { initial_interval: '10s', max_interval: '1s' } },
      /receivers\.azure_event_hub\.retry_on_failure\.max_interval: \(1s\) must be at least initial_interval \(10s\)/,
    ],
    ['a list where text belongs', { group: ['a'] }, /receivers\.azure_event_hub\.group: must be text, not a list/],
    [
      'text where a number belongs',
      { max_poll_events: 'many' },
      /receivers\.azure_event_hub\.max_poll_events: must be a number, not text/,
    ],
    [
      'an empty container name',
      { blob_checkpoint_store: { connection: 'UseDevelopmentStorage=true' } },
      /blob_checkpoint_store\.container_name: required/,
    ],
  ];
  for (const [what, receiver, says] of cases) {
    test(what, async () => {
      const r = await cli(['validate', '--config', config(receiver)]);
      assert.equal(r.code, 2);
      assert.match(r.err, says);
      assert.doesNotMatch(r.err, /Invalid input|expected \w+, received|Invalid option/);
    });
  }

  test('an unset variable behind a bad value is named in the error', async () => {
    const r = await cli([
      'validate',
      '--config',
      config({
        connection:
          `Endpoint=sb://\${env:EH_NAMESPACE}.servicebus.windows.net/;SharedAccessKeyName=k;` +
          `SharedAccessKey=${KEY};EntityPath=h`,
      }),
    ]);
    assert.equal(r.code, 2);
    assert.match(
      r.err,
      new RegExp(
        String.raw`receivers\.azure_event_hub\.connection: has an Endpoint that is not a URL.*\(environ` +
          String.raw`ment variable EH_NAMESPACE is not set\)`,
      ),
    );
  });

  test(
    'sending_queue.enabled: true is refused with why and what to do; other queue settings are a ' + 'warning',
    async () => {
      const refused = await cli(
        [
          'validate',
          '--config',
          config(
            {},
            { exporters: { otlphttp: { endpoint: 'http://127.0.0.1:4318', sending_queue: { enabled: true } } } },
          ),
          '--set',
          'service::pipelines::logs::exporters=[otlphttp]',
        ],
        {},
        await builtinComponents(),
      );
      assert.equal(refused.code, 2);
      assert.match(
        refused.err,
        new RegExp(
          String.raw`exporters\.otlphttp\.sending_queue\.enabled: is not supported: .*checkpoints follo` +
            String.raw`w acknowledgements.*The hub is the buffer.*Remove sending_queue`,
        ),
      );
      const tuned = await cli(
        [
          'validate',
          '--config',
          config(
            {},
            { exporters: { otlphttp: { endpoint: 'http://127.0.0.1:4318', sending_queue: { queue_size: 5000 } } } },
          ),
          '--set',
          'service::pipelines::logs::exporters=[otlphttp]',
        ],
        {},
        await builtinComponents(),
      );
      assert.equal(tuned.code, 0, tuned.err);
      assert.match(tuned.err, /^warning: exporters\.otlphttp\.sending_queue: ignored; there is no sending queue here/m);
    },
  );

  test(
    'tls.insecure beside an https:// otlphttp endpoint warns that it changes nothing; beside http:// it is ' + 'silent',
    async () => {
      const withScheme = (endpoint: string) =>
        cli(
          [
            'validate',
            '--config',
            config({}, { exporters: { otlphttp: { endpoint, tls: { insecure: true } } } }),
            '--set',
            'service::pipelines::logs::exporters=[otlphttp]',
          ],
          {},
          builtin,
        );
      const builtin = await builtinComponents();
      const https = await withScheme('https://collector.example:4318');
      assert.equal(https.code, 0, https.err);
      assert.match(
        https.err,
        /^warning: exporters\.otlphttp\.tls\.insecure: no effect; an https:\/\/ endpoint is always TLS/m,
      );
      assert.equal((await withScheme('http://127.0.0.1:4318')).err, '');
    },
  );
});

describe('service.telemetry through validate', () => {
  test(
    'a quoted port is a number (weak typing, as in the collector); a typo inside a list entry gets a ' + 'suggestion',
    async () => {
      const service = (prometheus: Record<string, unknown>) => ({
        service: {
          pipelines: { logs: { receivers: ['azure_event_hub'], exporters: ['debug'] } },
          telemetry: { metrics: { readers: [{ pull: { exporter: { prometheus } } }] } },
        },
      });
      assert.equal(
        (await cli(['validate', '--config', config({}, service({ host: '127.0.0.1', port: '9464' }))])).code,
        0,
      );
      const typo = await cli([
        'validate',
        '--config',
        config({ sanitizers: [{ patern: 'x', replacement: 'y' }] }, service({ hots: '0.0.0.0' })),
      ]);
      assert.equal(typo.code, 2);
      assert.match(
        typo.err,
        /service\.telemetry\.metrics\.readers\.0\.pull\.exporter\.prometheus\.hots: unknown key; did you mean `host`\?/,
      );
      assert.match(
        typo.err,
        /receivers\.azure_event_hub\.sanitizers\.0\.patern: unknown key; did you mean `pattern`\?/,
      );
    },
  );
});

describe('the command line', () => {
  test("'valdiate' suggests validate and exits 2; a word far from any command lists them all", async () => {
    const close = await cli(['valdiate', '--config', config({})]);
    assert.equal(close.code, 2);
    assert.match(close.err, /unknown command 'valdiate'; did you mean 'validate'\?/);
    const far = await cli(['frobnicate']);
    assert.equal(far.code, 2);
    assert.match(far.err, /unknown command 'frobnicate'\n\nUsage:/);
  });

  test(
    'ignored keys are warned about at validate and logged as warnings at start; readers choose the metrics ' +
      'endpoint',
    async () => {
      const cfg = config(
        { storage: 'file_storage', metric_aggregation: 'average' },
        {
          service: {
            pipelines: { logs: { receivers: ['azure_event_hub'], exporters: ['debug'] } },
            telemetry: {
              metrics: { readers: [{ pull: { exporter: { prometheus: { host: '127.0.0.1', port: 0 } } } }] },
            },
          },
        },
      );
      const v = await cli(['validate', '--config', cfg]);
      assert.equal(v.code, 0, v.err);
      assert.match(v.err, /^warning: receivers\.azure_event_hub\.storage: ignored .*use blob_checkpoint_store/m);
      assert.match(
        v.err,
        /^warning: receivers\.azure_event_hub\.metric_aggregation: unused: no metrics pipeline lists this receiver/m,
      );

      const tc = testComponents();
      const signals = new EventEmitter();
      const lines: string[] = [];
      const exit = main(['--config', cfg], {
        out: () => {},
        err: (l) => lines.push(l),
        env: {},
        components: tc.components,
        signals,
      });
      for (let i = 0; i < 500 && !tc.journal.includes('start azure_event_hub'); i++)
        await new Promise((r) => setTimeout(r, 10));
      signals.emit('SIGTERM', 'SIGTERM');
      assert.equal(await exit, 0);
      const logs = lines.map((l) => JSON.parse(l) as { level: string; msg: string; endpoint?: string });
      assert.ok(
        logs.some((l) => l.level === 'warn' && /^receivers\.azure_event_hub\.storage: ignored/.test(l.msg)),
        lines.join('\n'),
      );
      const metrics = logs.find((l) => l.msg === 'self-metrics endpoint listening');
      assert.match(metrics?.endpoint ?? '', /^127\.0\.0\.1:\d+$/);
      assert.notEqual(metrics?.endpoint, '127.0.0.1:8888', 'the reader, not the default, chose the port');
    },
  );
});
