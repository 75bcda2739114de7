import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../../src/component/errors.ts';
import { loadConfig } from '../../../src/config/load-config.ts';
import { resolveConfig } from '../../../src/distribution/resolve-config.ts';
import { testComponents } from './fake-components.ts';

const FIXTURES = join(import.meta.dirname, '../../fixtures/config');
const ENV = {
  EVENTHUB_CONNECTION:
    'Endpoint=sb://example-ns.servicebus.windows.net/;SharedAccessKeyName=listen;' +
    'SharedAccessKey=ZW52LXNlY3JldC1rZXk=;' +
    'EntityPath=example-hub',
  STORAGE_CONNECTION:
    'DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=ZW52LWFjY291bnQta2V5;BlobEndpoint=http://' +
    '127.0.0.1:10000/devstoreaccount1',
  // go_all_signals.yaml, as the end-to-end test points it at the emulator and Azurite
  CONSUMER_GROUP: '$Default',
  CHECKPOINT_CONTAINER: 'checkpoints',
  OUT_DIR: '/tmp/otelcol-out',
};

async function resolveFixture(name: string, env: Record<string, string | undefined> = ENV) {
  const loaded = await loadConfig({ configs: [join(FIXTURES, name)], env });
  return resolveConfig(loaded.raw, testComponents().components, loaded.unset);
}

async function problems(name: string): Promise<string> {
  try {
    await resolveFixture(name);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error.message;
  }
  assert.fail(`${name} validated`);
}

describe('valid fixtures', () => {
  const valid = readdirSync(FIXTURES).filter((f) => f.endsWith('.yaml') && !f.startsWith('invalid_'));
  for (const name of valid) {
    test(name, async () => {
      const resolved = await resolveFixture(name);
      assert.ok(resolved.receivers.size >= 1);
      assert.ok(resolved.service.pipelines.length >= 1);
    });
  }

  test('full.yaml: named receivers, alias, processors, env defaults and defaults filled in', async () => {
    const r = await resolveFixture('full.yaml');
    assert.deepEqual([...r.receivers.keys()], ['azure_event_hub/audit', 'azureeventhub/metrics']);
    assert.equal(r.receivers.get('azureeventhub/metrics')!.type, 'azure_event_hub');
    const audit = r.receivers.get('azure_event_hub/audit')!.config as Record<string, any>;
    assert.equal(audit.max_poll_events, 200, '${env:MAX_POLL_EVENTS:-200} became the number 200');
    assert.equal(audit.ownership.lease_duration, 20_000);
    assert.equal(audit.retention, 86_400_000);
    assert.equal(audit.hub_lag_interval, 60_000);
    assert.deepEqual(audit.memory, { limit_mib: 128, check_interval: 500 });
    assert.equal((r.receivers.get('azureeventhub/metrics')!.config as any).group, '$Default');
    assert.deepEqual((r.processors.get('batch')!.config as any).timeout, 500);
    assert.equal((r.exporters.get('file/archive')!.config as any).path, '/tmp/logs.jsonl');
    assert.deepEqual(
      r.service.pipelines.map((p) => p.id),
      ['logs/audit', 'logs/metrics'],
    );
    assert.equal(r.service.telemetry.logs.level, 'debug');
  });

  test('an auth extension a receiver refers to is started even when service.extensions omits it', async () => {
    const loaded = await loadConfig({
      configs: [join(FIXTURES, 'go_readme_service_principal.yaml')],
      sets: ['service.extensions=[]'],
      env: {},
    });
    const r = resolveConfig(loaded.raw, testComponents().components);
    assert.deepEqual(r.service.extensions, ['azure_auth']);
  });

  test('telemetry defaults: info, json, 127.0.0.1:8888', async () => {
    const r = await resolveFixture('default.yaml');
    assert.deepEqual(r.service.telemetry, {
      logs: { level: 'info', encoding: 'json' },
      metrics: { address: '127.0.0.1:8888', level: 'normal' },
      warnings: [],
    });
  });

  test('unset variables become warnings, and are named in the error where they made a value invalid', async () => {
    await assert.rejects(resolveFixture('default.yaml', {}), (e: ConfigError) => {
      assert.match(
        e.message,
        /receivers\.azure_event_hub\.connection: .*\(environment variable EVENTHUB_CONNECTION is not set\)/,
      );
      return true;
    });
  });
});

test("encoding: azure_encoding/<name> takes the extension's logs options onto the receiver", async () => {
  const resolved = await resolveFixture('go_azure_encoding.yaml');
  const config = resolved.receivers.get('azure_event_hub')?.config as {
    encoding?: string;
    time_formats: { logs?: string[] };
    include_categories: string[];
    exclude_categories: string[];
  };
  assert.equal(config.encoding, 'azure_encoding/logs');
  assert.deepEqual(config.time_formats.logs, ['1/2/2006 3:04:05 PM -07:00']);
  assert.deepEqual(config.include_categories, ['FrontDoorAccessLog', 'AppServiceHTTPLogs']);
  assert.deepEqual(config.exclude_categories, ['AppServiceHTTPLogs']);
});

describe('invalid fixtures', () => {
  const invalid = readdirSync(FIXTURES).filter((f) => f.startsWith('invalid_') && f.endsWith('.yaml'));
  for (const name of invalid) {
    test(name, async () => {
      const text = readFileSync(join(FIXTURES, name), 'utf8');
      const expects = [...text.matchAll(/^# expect: (.*)$/gm)].map((m) => m[1]!);
      const secrets = [...text.matchAll(/^# secret: (.*)$/gm)].map((m) => m[1]!);
      assert.ok(expects.length > 0, 'fixture names what it expects');
      const message = await problems(name);
      for (const e of expects) assert.ok(message.includes(e), `expected ${JSON.stringify(e)} in:\n${message}`);
      for (const s of secrets) assert.ok(!message.includes(s), `secret leaked in:\n${message}`);
      assert.ok(!/SharedAccessKey=(?!\*\*\*)/.test(message), `no key value in:\n${message}`);
    });
  }

  test('every problem is reported at once, across sections', async () => {
    const message = await problems('invalid_pipeline_references.yaml');
    assert.equal(message.split('\n').filter((l) => l.startsWith('  - ')).length, 4);
  });
});

test(
  'an inline auth object is validated with the receiver (missing keys, unknown keys), secrets not ' + 'echoed',
  async () => {
    const loaded = await loadConfig({
      configs: [
        `yaml:
receivers:
  azure_event_hub:
    auth: { type: service_principal, tenant_id: t, client_secrit: hunter2-secret }
    event_hub: { name: h, namespace: ns.servicebus.windows.net }
exporters: { debug: }
service: { pipelines: { logs: { receivers: [azure_event_hub], exporters: [debug] } } }
`,
      ],
      env: {},
    });
    assert.throws(
      () => resolveConfig(loaded.raw, testComponents().components),
      (e: ConfigError) => {
        assert.match(e.message, /receivers\.azure_event_hub\.auth\.client_id: /);
        assert.match(e.message, /receivers\.azure_event_hub\.auth\.client_secret: /);
        assert.match(e.message, /receivers\.azure_event_hub\.auth\.client_secrit: unknown key/);
        assert.ok(!e.message.includes('hunter2-secret'));
        return true;
      },
    );
  },
);
