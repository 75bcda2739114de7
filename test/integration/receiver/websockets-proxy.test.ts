/**
 * The whole receiver with `transport: amqp_websockets` and a `proxy_url` that carries credentials: events
 * come over WebSockets through the proxy's CONNECT tunnels, the checkpoint store's and the dead-letter
 * store's blob requests go through the same proxy to Azurite, and the proxy's password appears in no log
 * line, no status event and no stats.
 */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { BlobServiceClient } from '@azure/storage-blob';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import { PermanentError } from '../../../src/component/errors.ts';
import type { Logger } from '../../../src/component/logger.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { startAzurite, randomName } from '../../helpers/azurite.ts';
import { startTestProxy } from '../../helpers/connect-proxy.ts';
import { createSelfSignedCert, trustAnyCertificate } from '../backends/self-signed-cert.ts';
import { HealthState } from '../../../src/telemetry/health-state.ts';
import { BACKENDS, preload, startReceiver, until } from './harness.ts';

const PASSWORD = 'Pr0xy-pa55-W0rd';

let tls: { cert: Buffer; key: Buffer };
before(() => {
  tls = createSelfSignedCert();
  trustAnyCertificate();
});

function recordingLogger(lines: string[]): Logger {
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  const logger: Logger = {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    child: () => logger,
  };
  return logger;
}

for (const backend of BACKENDS) {
  test(`${backend}: events over WebSockets and blob storage both go through the proxy; its password is never shown`, {
    timeout: 90_000,
  }, async (t) => {
    const azurite = await startAzurite();
    t.after(() => azurite.stop());
    const { emulator, hubName } = await startTestEmulator(t, { partitions: 2, tls, websocketPort: 0 });
    const proxy = await startTestProxy({ credentials: { username: 'collector', password: PASSWORD } });
    t.after(() => proxy.close());
    const container = randomName('wsproxy');
    const deadLetters = randomName('wsdead');
    await BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(container).create();
    preload(emulator, hubName, 2, 50);

    // The exporter refuses one event permanently, so a dead-letter blob is written (through the proxy too).
    const memory = new InMemorySignalConsumer();
    const consumer: SignalConsumer = {
      consume: async (batch, signal) => {
        if (batch.records.some((r) => String(r.body) === 'p1-e7')) throw new PermanentError('refused for the test');
        return memory.consume(batch, signal);
      },
    };
    const statuses: string[] = [];
    const receiver = startReceiver(
      t,
      {
        connection: emulator.connectionString(hubName, { websockets: true }),
        backend,
        format: 'raw',
        start_position: 'earliest',
        max_poll_events: 10,
        transport: 'amqp_websockets',
        proxy_url: proxy.url,
        checkpoint: { interval: '200ms' },
        ownership: { update_interval: '1s' },
        blob_checkpoint_store: { connection: azurite.connectionString, container_name: container },
        dead_letter: { container: deadLetters },
      },
      consumer,
    );
    receiver.onStatus((s) => statuses.push(JSON.stringify(s)));
    await receiver.start();
    await until(() => memory.records().length >= 90, 30_000, 'events exported over WebSockets');
    await until(() => statuses.some((s) => s.includes('checkpointWritten')), 10_000, 'a checkpoint written');

    assert.ok(proxy.tunnels.length >= 1, 'AMQP went through CONNECT tunnels');
    assert.ok(
      proxy.tunnels.every((x) => x === `127.0.0.1:${emulator.websocketPort}`),
      proxy.tunnels.join(),
    );
    const storage = proxy.forwarded.filter((r) => r.includes(`/devstoreaccount1/${container}`));
    assert.ok(
      storage.some((r) => r.startsWith('PUT ')),
      `checkpoint blob writes through the proxy: ${storage.slice(0, 5).join('; ')}`,
    );
    await until(
      () => proxy.forwarded.some((r) => r.includes(`/devstoreaccount1/${deadLetters}`)),
      10_000,
      'dead-letter writes through the proxy',
    );
    const text = `${statuses.join('\n')}\n${JSON.stringify(receiver.stats())}`;
    assert.ok(!text.includes(PASSWORD), 'no password in statuses or stats');
    assert.equal(proxy.refused, 0);
    // Stopped while the proxy and Azurite still run (the after-hooks close them first).
    await receiver.shutdown();
  });
}

test('the start log names the transport and the proxy with its credentials masked', async (t) => {
  const { emulator, hubName } = await startTestEmulator(t, { partitions: 1, tls, websocketPort: 0 });
  const proxy = await startTestProxy({ credentials: { username: 'collector', password: PASSWORD } });
  t.after(() => proxy.close());
  emulator.append(hubName, '0', [{ body: 'one' }]);
  const lines: string[] = [];
  const memory = new InMemorySignalConsumer();
  const { createAzureEventHubReceiver } = await import('../../../src/index.ts');
  const receiver = createAzureEventHubReceiver(
    {
      connection: emulator.connectionString(hubName, { websockets: true }),
      format: 'raw',
      start_position: 'earliest',
      poll_rate: 0.2,
      transport: 'amqp_websockets',
      proxy_url: proxy.url,
    },
    memory,
    { logger: recordingLogger(lines) },
  );
  t.after(() => receiver.shutdown());
  await receiver.start();
  await until(() => memory.records().length >= 1, 20_000, 'the event exported');
  await receiver.shutdown();
  const start = lines.find((l) => l.includes('receiver starting'));
  assert.ok(start, lines.join('\n'));
  assert.match(start, /"transport":"amqp_websockets"/);
  assert.match(start, new RegExp(`"proxy":"http://\\*\\*\\*@127\\.0\\.0\\.1:${proxy.port}"`));
  assert.ok(!lines.join('\n').includes(PASSWORD), 'no password in any log line');
});

for (const backend of BACKENDS) {
  test(`${backend}: a proxy that refuses the credentials makes health misconfigured naming proxy_url, without the ` +
    `password`, {
    timeout: 60_000,
  }, async (t) => {
    const { emulator, hubName } = await startTestEmulator(t, { partitions: 1, tls, websocketPort: 0 });
    const proxy = await startTestProxy({ credentials: { username: 'collector', password: PASSWORD } });
    t.after(() => proxy.close());
    const wrong = 'Wr0ng-pa55-W0rd';
    const lines: string[] = [];
    const { createAzureEventHubReceiver } = await import('../../../src/index.ts');
    const receiver = createAzureEventHubReceiver(
      {
        connection: emulator.connectionString(hubName, { websockets: true }),
        backend,
        format: 'raw',
        transport: 'amqp_websockets',
        proxy_url: `http://collector:${wrong}@127.0.0.1:${proxy.port}`,
      },
      new InMemorySignalConsumer(),
      { logger: recordingLogger(lines) },
    );
    t.after(() => receiver.shutdown());
    const health = new HealthState();
    health.register('r');
    const statuses: string[] = [];
    receiver.onStatus((s) => {
      health.update('r', s);
      statuses.push(
        JSON.stringify(s, (_k, v: unknown) => (v instanceof Error ? { message: v.message, stack: v.stack } : v)),
      );
    });
    await receiver.start().catch(() => undefined);
    await until(() => health.report().receivers.r?.reason === 'misconfigured', 30_000, 'health to say misconfigured');
    const report = health.report().receivers.r!;
    assert.equal(report.status, 'unhealthy');
    assert.equal(report.configKey, 'proxy_url');
    assert.match(report.error ?? '', /proxy refused its credentials/);
    assert.ok(proxy.refused >= 1);
    await receiver.shutdown();
    const text = `${JSON.stringify(health.report())}\n${statuses.join('\n')}\n${lines.join('\n')}`;
    assert.ok(!text.includes(wrong) && !text.includes(PASSWORD), 'no password in health, statuses or logs');
  });
}
