import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { main } from '../../../src/distribution/cli.ts';
import type { CliIo } from '../../../src/distribution/cli-io.ts';
import { testComponents } from './fake-components.ts';

const FIXTURES = join(import.meta.dirname, '../../fixtures/config');

async function run(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t), env, components: testComponents().components };
  const code = await main(argv, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('cli', () => {
  test('validate: a valid config exits 0', async () => {
    const r = await run(['validate', '--config', join(FIXTURES, 'go_readme_blob_checkpoint.yaml')]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /the configuration is valid: 1 receiver, 1 exporter/);
  });

  test('validate: an invalid config exits 2 with every path, and no secret', async () => {
    const r = await run(['validate', '-c', join(FIXTURES, 'invalid_unknown_key.yaml')]);
    assert.equal(r.code, 2);
    assert.match(r.err, /receivers\.azure_event_hub\.max_pol_events: unknown key; did you mean `max_poll_events`\?/);
    assert.match(r.err, /blob_checkpoint_store\.container: unknown key; did you mean `container_name`\?/);
    assert.ok(!r.err.includes('QWNjb3VudEtleVRoYXRNdXN0U3RheUhpZGRlbg=='));
    assert.equal(r.out, '');
  });

  test('validate: start_position: yesterday exits 2 naming the path and what to write', async () => {
    const r = await run(['validate', '-c', join(FIXTURES, 'invalid_start_position.yaml')]);
    assert.equal(r.code, 2);
    assert.match(
      r.err,
      new RegExp(
        String.raw`receivers\.azure_event_hub\.start_position: 'yesterday' is not latest, earliest, an ` +
          String.raw`RFC 3339 time \(2026-01-02T15:04:05Z\) or a look-back duration`,
      ),
    );
    const fixed = await run([
      'validate',
      '-c',
      join(FIXTURES, 'invalid_start_position.yaml'),
      '--set',
      'receivers.azure_event_hub.start_position=24h',
    ]);
    assert.doesNotMatch(fixed.err, /start_position/);
  });

  test('--config files merge in order and --set applies last', async () => {
    const base = join(FIXTURES, 'invalid_format.yaml');
    const fixed = await run(['validate', '-c', base, '-c', 'yaml:receivers: {azure_event_hub: {format: json}}']);
    assert.equal(fixed.code, 0, fixed.err);
    const broken = await run([
      'validate',
      '-c',
      base,
      '-c',
      'yaml:receivers: {azure_event_hub: {format: json}}',
      '--set',
      'receivers.azure_event_hub.max_poll_events=0',
    ]);
    assert.equal(broken.code, 2);
    assert.match(broken.err, /receivers\.azure_event_hub\.max_poll_events: /);
  });

  test('${env:VAR} comes from the environment; a secret passed that way is not printed', async () => {
    const conn =
      'Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=ZW52LWNsaS1rZXk=;EntityPath=h';
    const r = await run(
      ['validate', '-c', join(FIXTURES, 'default.yaml'), '--set', 'receivers.azure_event_hub.format=bogus'],
      { EVENTHUB_CONNECTION: conn, STORAGE_CONNECTION: 'UseDevelopmentStorage=true;AccountKey=YWNjdA==' },
    );
    assert.equal(r.code, 2);
    assert.match(r.err, /receivers\.azure_event_hub\.format/);
    assert.ok(!r.err.includes('ZW52LWNsaS1rZXk=') && !r.err.includes('YWNjdA=='));
  });

  test('components lists types, aliases, stability and feature gates with their stage', async () => {
    const r = await run(['components', '--feature-gates', '+receiver.azureeventhub.streaming']);
    assert.equal(r.code, 0, r.err);
    const doc = parseYaml(r.out);
    assert.deepEqual(doc.receivers[0], {
      name: 'azure_event_hub',
      aliases: ['azureeventhub'],
      stability: { logs: 'beta', metrics: 'beta', traces: 'beta' },
    });
    assert.deepEqual(doc.processors.find((p: { name: string }) => p.name === 'batch').stability, {
      logs: 'beta',
      metrics: 'beta',
      traces: 'beta',
    });
    assert.ok(doc.extensions.some((e: { name: string }) => e.name === 'health_check'));
    assert.ok(doc.processors.some((e: { name: string }) => e.name === 'batch'));
    assert.deepEqual(doc.feature_gates[0].id, 'receiver.azureeventhub.streaming');
    assert.equal(doc.feature_gates[0].stage, 'alpha');
    assert.equal(doc.feature_gates[0].enabled, true);
  });

  test('usage errors exit 2: unknown command, unknown flag, unknown gate, missing --config', async () => {
    for (const argv of [
      ['frobnicate'],
      ['toString'],
      ['validate', '--nope'],
      ['components', '--feature-gates', 'no.such.gate'],
      ['validate'],
      [],
    ]) {
      const r = await run(argv);
      assert.equal(r.code, 2, `${argv.join(' ')}: ${r.err}`);
      assert.ok(r.err.length > 0);
    }
  });

  test('--help works everywhere and documents the exit codes', async () => {
    const top = await run(['--help']);
    assert.equal(top.code, 0);
    assert.match(top.out, /143 {2}forced exit by a second SIGTERM/);
    for (const cmd of ['run', 'validate', 'components', 'checkpoints']) {
      const r = await run([cmd, '--help']);
      assert.equal(r.code, 0, `${cmd}: ${r.err}`);
      assert.match(r.out, new RegExp(`Usage: otelcol-azure-eventhub \\[?${cmd}`));
    }
  });
});
