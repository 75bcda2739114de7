import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { main } from '../../../src/distribution/cli.ts';
import type { CliIo } from '../../../src/distribution/cli-io.ts';
import { DUPLICATE_SIGNAL_WINDOW_MS, shutdownBudgetMs } from '../../../src/distribution/commands/run-command.ts';
import { testComponents } from './fake-components.ts';
import { waitUntil } from '../../helpers/wait-until.ts';

const CONNECTION =
  'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=cnVuLWtleQ==;EntityPath=h';
const CONFIG = `yaml:
receivers:
  azure_event_hub:
    connection: "${CONNECTION}"
    shutdown_timeout: 5s
exporters:
  debug:
service:
  pipelines:
    logs: { receivers: [azure_event_hub], exporters: [debug] }
  telemetry:
    metrics: { address: "127.0.0.1:0" }
`;

function setup() {
  const tc = testComponents();
  const signals = new EventEmitter();
  const err: string[] = [];
  const io: CliIo = { out: () => {}, err: (l) => err.push(l), env: {}, components: tc.components, signals };
  return { tc, signals, err, io };
}

const until = (predicate: () => boolean, what: string) => waitUntil(predicate, 5_000, what, 10);

test('the first SIGTERM stops gracefully (receivers, then exporters) and exits 0', async () => {
  const { tc, signals, err, io } = setup();
  const exit = main(['--config', CONFIG], io);
  await until(() => tc.journal.includes('start azure_event_hub'), 'receiver started');
  assert.equal(signals.listenerCount('SIGTERM'), 1);
  signals.emit('SIGTERM', 'SIGTERM');
  assert.equal(await exit, 0);
  assert.deepEqual(tc.journal.slice(-3), ['shutdown azure_event_hub', 'flush debug', 'shutdown debug']);
  assert.equal(signals.listenerCount('SIGTERM'), 0, 'signal handlers removed');
  const logs = err.map((l) => JSON.parse(l) as { msg: string });
  assert.ok(logs.some((l) => l.msg === 'shutting down gracefully; send the signal again to exit at once'));
  assert.ok(!err.join('').includes('cnVuLWtleQ=='));
});

test('a second signal forces the exit: 130 after SIGINT, 143 after SIGTERM', async () => {
  for (const [second, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    const { tc, signals, io } = setup();
    const exit = main(['--config', CONFIG], io);
    await until(
      () => tc.receivers.has('azure_event_hub') && tc.journal.includes('start azure_event_hub'),
      'receiver started',
    );
    // A receiver whose graceful stop hangs (e.g. an exporter that never answers).
    tc.receivers.get('azure_event_hub')!.shutdown = () => new Promise(() => {});
    signals.emit('SIGTERM', 'SIGTERM');
    // A different signal forces at once; the same one only after the duplicate window.
    await new Promise((r) => setTimeout(r, second === 'SIGTERM' ? DUPLICATE_SIGNAL_WINDOW_MS + 100 : 20));
    signals.emit(second, second);
    assert.equal(await exit, code);
  }
});

test(
  'the same signal relayed again at once (Ctrl-C through npm or tsx) does not cut the graceful stop ' + 'short',
  async () => {
    const { tc, signals, io } = setup();
    const exit = main(['--config', CONFIG], io);
    await until(() => tc.journal.includes('start azure_event_hub'), 'receiver started');
    const receiver = tc.receivers.get('azure_event_hub')!;
    const original = receiver.shutdown.bind(receiver);
    receiver.shutdown = async () => {
      await new Promise((r) => setTimeout(r, 200));
      await original();
    };
    signals.emit('SIGINT', 'SIGINT');
    await new Promise((r) => setTimeout(r, 10));
    signals.emit('SIGINT', 'SIGINT');
    assert.equal(await exit, 0);
    assert.ok(tc.journal.includes('shutdown azure_event_hub'));
  },
);

test('the shutdown budget is the slowest receiver shutdown_timeout plus the exporter allowance', async () => {
  const { loadConfig } = await import('../../../src/config/load-config.ts');
  const { resolveConfig } = await import('../../../src/distribution/resolve-config.ts');
  const loaded = await loadConfig({ configs: [CONFIG], env: {} });
  assert.equal(shutdownBudgetMs(resolveConfig(loaded.raw, testComponents().components)), 15_000);
});

test('a start failure exits 1; a config problem found while creating a component exits 2', async () => {
  for (const [error, code] of [
    [new Error('connect ECONNREFUSED'), 1],
    [
      new (await import('../../../src/component/errors.ts')).ConfigError(['exporters.otlp.tls.ca_file: cannot read']),
      2,
    ],
  ] as const) {
    const { tc, err, io } = setup();
    const factory = tc.components.receivers[0]!;
    (factory as { create: typeof factory.create }).create = async () => Promise.reject(error);
    assert.equal(await main(['--config', CONFIG], io), code);
    assert.match(err.join('\n'), code === 2 ? /tls\.ca_file: cannot read/ : /could not start/);
  }
});
