/**
 * Misconfigured receivers beside a correct one, in one CLI process per backend: each misconfiguration
 * (unknown consumer group, unknown hub, wrong key, an offset the hub refuses) is logged at most once per
 * backoff step, makes health non-200 with a reason naming the config key, and the correct receiver keeps
 * exporting.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../src/emulator/index.ts';
import { randomName } from '../helpers/azurite.ts';
import { endpointOf, fileRecords, httpGet, startCli, waitUntil, type CliProcess } from './cli-process.ts';

const KEY_NAME = 'RootManageSharedAccessKey';
const KEY = Buffer.from('the-right-key-for-this-test').toString('base64');
const WRONG_KEY = Buffer.from('a-wrong-key-nobody-should-see').toString('base64');
/** How long the log lines are counted, as the issue states the bound (≤ 10 lines in 30 s). */
const WINDOW_MS = 30_000;

const BAD = {
  'azure_event_hub/badgroup': { configKey: 'group' },
  'azure_event_hub/badhub': { configKey: 'event_hub.name' },
  'azure_event_hub/badkey': { configKey: 'connection' },
  'azure_event_hub/badoffset': { configKey: 'offset' },
} as const;

async function records(path: string): Promise<number> {
  return (await fileRecords(path)).length;
}

test('misconfigured receivers are reported, rate-limited and isolated, on both backends', {
  timeout: 150_000,
}, async (t) => {
  const hub = randomName('good');
  // The bad key and the bad offset read hubs of their own: two receivers on one hub and consumer group would
  // read the same partitions twice, which validate refuses.
  const keyHub = randomName('key');
  const offsetHub = randomName('offset');
  const hubs = [hub, keyHub, offsetHub].map((name) => ({ name, partitions: 2 }));
  const emulator = await startEmulator({ port: 0, hubs, sasKeys: { [KEY_NAME]: KEY } });
  t.after(() => emulator.stop());
  const dir = await mkdtemp(join(tmpdir(), 'otelcol-misconfig-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const good = emulator.connectionString(hub);
  assert.ok(good.includes(KEY));

  async function run(backend: 'polling' | 'streaming'): Promise<void> {
    const out = join(dir, `${backend}.jsonl`);
    const configPath = join(dir, `${backend}.yaml`);
    const common = `backend: ${backend}\n    format: raw\n    poll_rate: 0.5`;
    await writeFile(
      configPath,
      `receivers:
  azure_event_hub/good:
    connection: \${env:GOOD}
    start_position: earliest
    ${common}
  azure_event_hub/badgroup:
    connection: \${env:GOOD}
    group: no-such-group
    ${common}
  azure_event_hub/badhub:
    connection: \${env:NO_ENTITY}
    event_hub:
      name: no-such-hub
    ${common}
  azure_event_hub/badkey:
    connection: \${env:WRONG_KEY}
    ${common}
  azure_event_hub/badoffset:
    connection: \${env:OFFSET_HUB}
    partition: "0"
    offset: "1234-5566"
    ${common}
exporters:
  file:
    path: ${out}
extensions:
  health_check:
    endpoint: 127.0.0.1:0
service:
  extensions: [health_check]
  pipelines:
    logs:
      receivers:
        - azure_event_hub/good
        - azure_event_hub/badgroup
        - azure_event_hub/badhub
        - azure_event_hub/badkey
        - azure_event_hub/badoffset
      exporters: [file]
  telemetry:
    metrics:
      level: none
`,
    );
    const started = Date.now();
    const cli: CliProcess = startCli(t, ['--config', configPath], {
      GOOD: good,
      NO_ENTITY: emulator.connectionString(),
      WRONG_KEY: emulator.connectionString(keyHub).replace(KEY, WRONG_KEY),
      OFFSET_HUB: emulator.connectionString(offsetHub),
    });
    const healthLine = await cli.waitForLog(
      (l) => l.msg === 'health check endpoint listening',
      30_000,
      'health endpoint',
    );
    const url = `http://${endpointOf(healthLine)}/`;

    // Health says which receiver is misconfigured and which key to fix, well within 15 s.
    const firstSeen = new Map<string, number>();
    const report = await waitUntil(
      async () => {
        const r = await httpGet(url);
        const body = JSON.parse(r.body) as {
          status: string;
          receivers: Record<string, { reason?: string; configKey?: string }>;
        };
        for (const id of Object.keys(BAD))
          if (body.receivers[id]?.reason === 'misconfigured' && !firstSeen.has(id))
            firstSeen.set(id, Date.now() - started);
        const all = Object.keys(BAD).every((id) => body.receivers[id]?.reason === 'misconfigured');
        return r.status !== 200 && all ? body : undefined;
      },
      15_000,
      `${backend}: every misconfigured receiver reported`,
    );
    t.diagnostic(
      `${backend}: health non-200 naming every bad receiver ${Date.now() - started} ms after start ` +
        `(${[...firstSeen].map(([id, ms]) => `${id.split('/')[1]} ${ms} ms`).join(', ')})`,
    );
    for (const [id, { configKey }] of Object.entries(BAD)) {
      assert.equal(report.receivers[id]!.configKey, configKey, `${backend} ${id}: the key to fix`);
    }
    assert.equal(report.status, 'unhealthy');

    // The correct receiver exports meanwhile, and keeps exporting.
    emulator.append(hub, '1', [{ body: `${backend}-a` }, { body: `${backend}-b` }]);
    await waitUntil(
      async () => ((await records(out)) >= 4 ? true : undefined),
      20_000,
      `${backend}: the good receiver exports`,
    );
    await waitUntil(
      async () => (Date.now() - started >= WINDOW_MS ? true : undefined),
      WINDOW_MS + 5_000,
      'the window',
    );
    emulator.append(hub, '0', [{ body: `${backend}-c` }]);
    await waitUntil(async () => ((await records(out)) >= 5 ? true : undefined), 20_000, `${backend}: still exporting`);

    const logs = cli.logs().filter((l) => Date.parse(String(l.ts)) - started <= WINDOW_MS);
    for (const id of Object.keys(BAD)) {
      const lines = logs.filter(
        (l) => (l.level === 'warn' || l.level === 'error') && l.component === `receivers/${id}`,
      );
      t.diagnostic(`${backend} ${id}: ${lines.length} warn/error lines in ${WINDOW_MS / 1000} s`);
      assert.ok(lines.length >= 1, `${backend} ${id}: the failure is logged`);
      assert.ok(lines.length <= 10, `${backend} ${id}: ${lines.length} lines: ${lines.map((l) => l.msg).join(' | ')}`);
    }
    assert.ok(!cli.stderr().includes(WRONG_KEY) && !cli.stderr().includes(KEY), 'no key in any output');
    cli.child.kill('SIGTERM');
    assert.equal(await cli.exited(60_000), 0, cli.stderr().slice(-2000));
  }

  await Promise.all([run('polling'), run('streaming')]);
});
