/**
 * Every config of the Go receiver's README and testdata (transcribed verbatim in test/fixtures/go-configs,
 * each with its source path and commit) goes through `validate`, and the outcome is the one
 * docs/migration.md documents: valid (with the warnings it names) or exit 2 with the path and the reason.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { main } from '../../../src/distribution/cli.ts';
import type { CliIo } from '../../../src/distribution/cli-io.ts';
import { builtinComponents } from '../../../src/distribution/builtin-components.ts';
import type { Components } from '../../../src/distribution/components.ts';

const GO = join(import.meta.dirname, '../../fixtures/go-configs');
/** The secret-looking values of the Go fixtures: never in any output. */
const SECRETS = ['superSecret1234=', 'mykey', 'client-secret-value'];
/** What a user adds to a receiver-only fragment: an exporter and a pipeline. */
const PIPELINE =
  'yaml:{exporters: {debug: {}}, service: {pipelines: {logs: {receivers: [azure_event_hub], exporters: [debug]}}}}';

async function validate(args: string[], env: Record<string, string> = {}, components?: Components) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t), env, ...(components ? { components } : {}) };
  const code = await main(['validate', ...args], io);
  const all = `${out.join('\n')}\n${err.join('\n')}`;
  for (const s of SECRETS) assert.ok(!all.includes(s), `a secret was printed:\n${all}`);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

interface Expected {
  readonly extra?: readonly string[];
  readonly env?: Record<string, string>;
  readonly code: 0 | 2;
  /** Lines expected on stderr (errors when code 2, warnings when 0). */
  readonly says?: readonly RegExp[];
}

const README: Record<string, Expected> = {
  // The README's template: its placeholders make the Endpoint no URL; filled in, it validates.
  'readme-example-configuration.yaml': {
    code: 2,
    says: [
      new RegExp(
        String.raw`receivers\.azure_event_hub\.connection: has an Endpoint that is not a URL like sb` +
          String.raw`:\/\/<namespace>\.servicebus\.windows\.net\/`,
      ),
    ],
  },
  'readme-service-principal.yaml': {
    code: 0,
    env: { AZURE_CLIENT_ID: 'client-id', AZURE_CLIENT_SECRET: 'client-secret-value', AZURE_TENANT_ID: 'tenant-id' },
  },
  'readme-storage-extension.yaml': {
    code: 0,
    extra: ['--set', 'service::extensions=[file_storage]'],
    says: [
      new RegExp(
        String.raw`^warning: receivers\.azure_event_hub\.storage: ignored \(no storage extensions her` +
          String.raw`e\); use blob_checkpoint_store`,
        'm',
      ),
      /^warning: extensions\.file_storage: ignored; nothing is stored here/m,
    ],
  },
  'readme-blob-connection-strings.yaml': { code: 0 },
  // The fragment names `azureauth` without defining it: refused until the extension is added, then valid.
  'readme-blob-auth-extension.yaml': {
    code: 2,
    says: [
      new RegExp(
        String.raw`receivers\.azure_event_hub\.auth: references extension 'azureauth', which is not con` +
          String.raw`figured; add it under extensions \(type azure_auth\)`,
      ),
    ],
  },
  'readme-time-formats-partitioning.yaml': {
    code: 0,
    says: [
      /^warning: receivers\.azure_event_hub\.time_formats\.metrics: unused: no metrics pipeline lists this receiver/m,
    ],
  },
};

describe("the Go receiver's README configs", () => {
  for (const [file, expected] of Object.entries(README)) {
    test(`${file}: ${expected.code === 0 ? 'valid' : 'exit 2 with the path and the reason'}`, async () => {
      const r = await validate(
        ['--config', `file:${join(GO, file)}`, '--config', PIPELINE, ...(expected.extra ?? [])],
        expected.env,
      );
      assert.equal(r.code, expected.code, r.err);
      for (const re of expected.says ?? []) assert.match(r.err, re);
      if (expected.code === 0) assert.match(r.out, /the configuration is valid/);
    });
  }

  test('the placeholders filled in, and the azureauth extension added, both README fragments validate', async () => {
    const filled = await validate([
      '--config',
      join(GO, 'readme-example-configuration.yaml'),
      '--config',
      PIPELINE,
      '--set',
      'receivers::azure_event_hub::connection=Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;' +
        'SharedAccessKey=mykey;EntityPath=h',
    ]);
    assert.equal(filled.code, 0, filled.err);
    const withAuth = await validate([
      '--config',
      join(GO, 'readme-blob-auth-extension.yaml'),
      '--config',
      PIPELINE,
      '--config',
      'yaml:extensions::azureauth::use_default: true',
    ]);
    assert.equal(withAuth.code, 0, withAuth.err);
  });
});

/** The outcome the Go receiver's config test expects of each testdata id, and the message here. */
const TESTDATA: Record<string, { code: 0 | 2; says?: RegExp }> = {
  azure_event_hub: { code: 0 },
  'azure_event_hub/missing_connection': { code: 2, says: /\.connection: required: give a connection string, or auth/ },
  'azure_event_hub/invalid_connection_string': {
    code: 2,
    says: /\.connection: is not a connection string \(Key=Value pairs/,
  },
  'azure_event_hub/invalid_format': {
    code: 2,
    says: /\.format: must be one of azure, azure_encoding, raw, json, "" \(empty\)/,
  },
  'azure_event_hub/offset_without_partition': { code: 2, says: /\.offset: only applies with partition/ },
  'azure_event_hub/offset_with_partition': { code: 0 },
  'azure_event_hub/auth': { code: 0 },
  'azure_event_hub/auth_missing_event_hub_name': { code: 2, says: /\.event_hub\.name: required when auth is used/ },
  'azure_event_hub/auth_missing_namespace': { code: 2, says: /\.event_hub\.namespace: required when auth is used/ },
};

describe("the Go receiver's testdata/config.yaml, one receiver id at a time", () => {
  const sections = parseYaml(readFileSync(join(GO, 'testdata-config.yaml'), 'utf8')) as Record<string, unknown>;

  test('the table covers every id of the file', () => {
    assert.deepEqual(Object.keys(sections).sort(), Object.keys(TESTDATA).sort());
  });

  for (const [id, expected] of Object.entries(TESTDATA)) {
    test(`${id}: ${expected.code === 0 ? 'valid' : 'exit 2'}`, async () => {
      const config = {
        receivers: { [id]: sections[id] },
        exporters: { debug: {} },
        extensions: { azureauth: { use_default: true } },
        service: { pipelines: { logs: { receivers: [id], exporters: ['debug'] } } },
      };
      const r = await validate(['--config', `yaml:${JSON.stringify(config)}`]);
      assert.equal(r.code, expected.code, r.err);
      if (expected.says)
        assert.match(r.err, new RegExp(`receivers\\.${id.replace('/', '\\/')}${expected.says.source}`));
    });
  }
});

/** Pass-through stand-ins for components other branches build, so this test checks the loader, not them. */
async function withStandIns(): Promise<Components> {
  const c = await builtinComponents();
  const has = (list: readonly { type: string }[], type: string) => list.some((f) => f.type === type);
  const schema = z.looseObject({});
  const processors = has(c.processors, 'memory_limiter')
    ? c.processors
    : [
        ...c.processors,
        {
          type: 'memory_limiter',
          stability: 'development' as const,
          configSchema: schema,
          createDefaultConfig: () => ({}),
          create: async (_s: unknown, _c: unknown, next: never) => next,
        },
      ];
  const extensions = [...c.extensions];
  for (const type of ['zpages', 'pprof']) {
    if (has(extensions, type)) continue;
    extensions.push({
      type,
      stability: 'development',
      configSchema: schema,
      createDefaultConfig: () => ({}),
      create: async () => ({ start: async () => {}, shutdown: async () => {} }),
    });
  }
  return { ...c, processors, extensions };
}

describe("a config in today's Go collector layout", () => {
  test(
    'readers, logs, memory_limiter, zpages, pprof, health_check and a :: --set validate with no ' + 'warning',
    async () => {
      const r = await validate(
        ['--config', join(GO, 'today-collector-layout.yaml'), '--set', 'receivers::azure_event_hub::max_poll_events=7'],
        {
          EVENTHUB_CONNECTION:
            'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=mykey;EntityPath=h',
        },
        await withStandIns(),
      );
      assert.equal(r.code, 0, r.err);
      assert.equal(r.err, '', 'no warnings');
      assert.match(r.out, /1 receiver, 1 exporter, 2 processors, 3 extensions, 1 pipeline/);
    },
  );
});
