import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventHubConsumerClient, EventHubProducerClient } from '@azure/event-hubs';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bin', 'eventhubs-emulator.js');

function run(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  void exited.then(() => clearTimeout(killer));
  return { child, exited, out: () => stdout, err: () => stderr };
}

async function firstLine(p: ReturnType<typeof run>, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!p.out().includes('\n')) {
    if (Date.now() > deadline) throw new Error(`no output within ${timeoutMs} ms; stderr: ${p.err()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return p.out().split('\n')[0]!;
}

test(
  'the CLI serves hubs from a Docker emulator config and flags, prints its connection string and exits on ' + 'SIGTERM',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'emulator-cli-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const config = join(dir, 'Config.json');
    writeFileSync(
      config,
      JSON.stringify({
        UserConfig: {
          NamespaceConfig: [
            {
              Type: 'EventHub',
              Name: 'emulatorNs1',
              Entities: [{ Name: 'eh1', PartitionCount: '2', ConsumerGroups: [{ Name: 'cg1' }] }],
            },
          ],
          LoggingConfig: { Type: 'File' },
        },
      }),
    );
    const p = run(['--port', '0', '--config', config, '--hub', 'extra:3', '--retention', '10m']);
    t.after(() => p.child.kill('SIGKILL'));
    const line = await firstLine(p);
    assert.match(
      line,
      new RegExp(
        String.raw`^Endpoint=sb:\/\/127\.0\.0\.1:\d+;SharedAccessKeyName=RootManageSharedAccessKey;Shar` +
          String.raw`edAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true$`,
      ),
    );

    const producer = new EventHubProducerClient(line, 'eh1');
    const extra = new EventHubProducerClient(line, 'extra');
    const consumer = new EventHubConsumerClient('cg1', line, 'eh1');
    try {
      assert.deepEqual((await producer.getEventHubProperties()).partitionIds, ['0', '1']);
      assert.deepEqual((await extra.getEventHubProperties()).partitionIds, ['0', '1', '2']);
      assert.equal((await consumer.getPartitionProperties('1')).partitionId, '1');
    } finally {
      await Promise.all([producer.close(), extra.close(), consumer.close()]);
    }
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0);
  },
);

test('the CLI also exits cleanly on SIGINT', async (t) => {
  const p = run(['--port', '0', '--hub', 'a:1']);
  t.after(() => p.child.kill('SIGKILL'));
  assert.match(await firstLine(p), /^Endpoint=sb:\/\/127\.0\.0\.1:\d+;/);
  p.child.kill('SIGINT');
  assert.equal(await p.exited, 0, `exit code after SIGINT; stderr: ${p.err()}`);
});

test('bad flags and bad config files exit with code 2 and a clear message', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'emulator-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, '{"UserConfig":{"NamespaceConfig":[{"Entities":[{"Name":"eh1","PartitionCount":0}]}]}}');
  const cases: Array<[string[], RegExp]> = [
    [['--hub', 'eh1'], /--hub: 'eh1' must be NAME:PARTITIONS/],
    [['--hub', 'eh1:33'], /partitions must be an integer from 1 to 32/],
    [['--config', bad], /Entities\[0\]\.PartitionCount: must be an integer from 1 to 32/],
    [['--config', join(dir, 'missing.json')], /cannot read/],
    [['--frobnicate'], /Unknown option/],
  ];
  for (const [args, message] of cases) {
    const p = run(['--port', '0', ...args]);
    assert.equal(await p.exited, 2, `exit code for ${args.join(' ')}`);
    assert.match(p.err(), message);
    assert.equal(p.out(), '');
  }
});
