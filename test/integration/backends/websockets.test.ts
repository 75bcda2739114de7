/**
 * Both backends speak AMQP over WebSockets (`transport: amqp_websockets`) to the emulator's `wss` port,
 * directly or through an HTTP CONNECT proxy (explicit `proxyUrl`, or the HTTPS_PROXY environment minus
 * NO_PROXY), with SAS and with a TokenCredential. The test proxy counts its tunnels, which proves where
 * the traffic went; a proxy's password never appears in an error.
 */
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import type { AccessToken, TokenCredential } from '@azure/core-auth';
import { createHubClient } from '../../../src/backends/create-hub-client.ts';
import type { BackendKind, HubClient, PartitionReader, ReceivedEvent } from '../../../src/backends/consumer.ts';
import { BackendError } from '../../../src/backends/consumer.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { startTestProxy, type TestProxy } from '../../helpers/connect-proxy.ts';
import { createSelfSignedCert, trustAnyCertificate } from './self-signed-cert.ts';
import { fakeJwt } from '../../helpers/fake-jwt.ts';

const KEY_NAME = 'RootManageSharedAccessKey';
const KEY = 'd2Vic29ja2V0cy10ZXN0LWtleQ==';
const RETRY = { maxRetries: 1, retryDelayMs: 20, maxRetryDelayMs: 100, timeoutMs: 5_000 } as const;
const PROXY_PASSWORD = 'pr0xy-S3cret-pa55';

let tls: { cert: Buffer; key: Buffer };

before(() => {
  tls = createSelfSignedCert();
  trustAnyCertificate();
});

class StaticCredential implements TokenCredential {
  calls = 0;
  async getToken(): Promise<AccessToken> {
    this.calls++;
    return { token: fakeJwt(`ws-token-${this.calls}`), expiresOnTimestamp: Date.now() + 3_600_000 };
  }
}

async function collect(reader: PartitionReader, count: number, timeoutMs = 8_000): Promise<ReceivedEvent[]> {
  const out: ReceivedEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  while (out.length < count && Date.now() < deadline)
    out.push(...(await reader.receive(count - out.length, 300, AbortSignal.timeout(timeoutMs))));
  return out;
}

async function proxyFor(
  t: { after(fn: () => Promise<void>): void },
  credentials?: { username: string; password: string },
): Promise<TestProxy> {
  const proxy = await startTestProxy(credentials ? { credentials } : {});
  t.after(() => proxy.close());
  return proxy;
}

async function wsEmulator(t: Parameters<typeof startTestEmulator>[0]) {
  const env = await startTestEmulator(t, { sasKeys: { [KEY_NAME]: KEY }, tls, websocketPort: 0 });
  env.emulator.append(env.hubName, '1', [{ body: 'over' }, { body: 'websockets' }]);
  return env;
}

async function readTwo(client: HubClient, hubName: string): Promise<string[]> {
  assert.equal((await client.getHubProperties()).name, hubName);
  const reader = await client.openPartition('1', { startPosition: { kind: 'earliest' } });
  try {
    return (await collect(reader, 2)).map((e) => Buffer.from(e.body).toString());
  } finally {
    await reader.close();
  }
}

for (const kind of ['polling', 'streaming'] as const satisfies readonly BackendKind[]) {
  describe(`${kind} backend over WebSockets`, () => {
    test('SAS through a CONNECT proxy: every connection is a tunnel to the wss port', async (t) => {
      const { emulator, hubName, consumerGroup, track } = await wsEmulator(t);
      const proxy = await proxyFor(t);
      const client = track(
        createHubClient(kind, {
          connectionString: emulator.connectionString(hubName, { websockets: true }),
          consumerGroup,
          transport: 'amqp_websockets',
          proxyUrl: proxy.url,
          retry: RETRY,
        }),
      );
      assert.deepEqual(await readTwo(client, hubName), ['over', 'websockets']);
      assert.ok(proxy.tunnels.length >= 1, 'at least one tunnel');
      assert.deepEqual(new Set(proxy.tunnels), new Set([`127.0.0.1:${emulator.websocketPort}`]));
    });

    test('a TokenCredential through a proxy that requires Basic credentials', async (t) => {
      const { emulator, hubName, consumerGroup, track } = await wsEmulator(t);
      const proxy = await proxyFor(t, { username: 'collector', password: PROXY_PASSWORD });
      const credential = new StaticCredential();
      const client = track(
        createHubClient(kind, {
          credential,
          fullyQualifiedNamespace: `localhost:${emulator.websocketPort}`,
          eventHubName: hubName,
          consumerGroup,
          transport: 'amqp_websockets',
          proxyUrl: proxy.url,
          retry: RETRY,
        }),
      );
      assert.deepEqual(await readTwo(client, hubName), ['over', 'websockets']);
      assert.ok(credential.calls >= 2, 'jwt claims were put');
      assert.ok(
        proxy.tunnels.length >= 1 && proxy.tunnels.every((x) => x === `localhost:${emulator.websocketPort}`),
        proxy.tunnels.join(),
      );
      assert.equal(proxy.refused, 0);
    });

    test('an https:// proxy: the client reaches the proxy itself over TLS', async (t) => {
      const { emulator, hubName, consumerGroup, track } = await wsEmulator(t);
      const proxy = await startTestProxy({ tls, credentials: { username: 'collector', password: PROXY_PASSWORD } });
      t.after(() => proxy.close());
      assert.match(proxy.url, /^https:\/\//);
      const client = track(
        createHubClient(kind, {
          connectionString: emulator.connectionString(hubName, { websockets: true }),
          consumerGroup,
          transport: 'amqp_websockets',
          proxyUrl: proxy.url,
          retry: RETRY,
        }),
      );
      assert.deepEqual(await readTwo(client, hubName), ['over', 'websockets']);
      assert.ok(proxy.tunnels.length >= 1);
    });

    test('a wrong proxy password fails without the password in the error', async (t) => {
      const { emulator, hubName, consumerGroup, track } = await wsEmulator(t);
      const proxy = await proxyFor(t, { username: 'collector', password: PROXY_PASSWORD });
      const wrong = 'wr0ng-Pa55word-x';
      const client = track(
        createHubClient(kind, {
          connectionString: emulator.connectionString(hubName, { websockets: true }),
          consumerGroup,
          transport: 'amqp_websockets',
          proxyUrl: `http://collector:${wrong}@127.0.0.1:${proxy.port}`,
          retry: { ...RETRY, maxRetries: 0 },
        }),
      );
      await assert.rejects(client.getHubProperties(), (e: unknown) => {
        assert.ok(e instanceof BackendError, String(e));
        assert.equal(e.code, 'ProxyAuthenticationRequired');
        assert.ok(e.permanent && !e.retryable && e.configKey === 'proxy_url', e.message);
        const text = `${e.message}\n${e.stack}\n${JSON.stringify(e)}\n${String((e as { cause?: unknown }).cause)}`;
        assert.ok(!text.includes(wrong) && !text.includes(PROXY_PASSWORD), 'no password in the error');
        return true;
      });
      assert.ok(proxy.refused >= 1, 'the proxy refused the tunnel');
      assert.equal(proxy.tunnels.length, 0);
    });

    test('HTTPS_PROXY from the environment is used; NO_PROXY exempts the host', async (t) => {
      const { emulator, hubName, consumerGroup, track } = await wsEmulator(t);
      const proxy = await proxyFor(t);
      const base = {
        connectionString: emulator.connectionString(hubName, { websockets: true }),
        consumerGroup,
        transport: 'amqp_websockets',
        retry: RETRY,
      } as const;
      const viaEnv = track(createHubClient(kind, { ...base, proxyEnvironment: { https_proxy: proxy.url } }));
      assert.deepEqual(await readTwo(viaEnv, hubName), ['over', 'websockets']);
      const tunnels = proxy.tunnels.length;
      assert.ok(tunnels >= 1);
      const exempt = track(
        createHubClient(kind, {
          ...base,
          proxyEnvironment: { HTTPS_PROXY: proxy.url, NO_PROXY: 'example.com, 127.0.0.1' },
        }),
      );
      assert.deepEqual(await readTwo(exempt, hubName), ['over', 'websockets']);
      assert.equal(proxy.tunnels.length, tunnels, 'NO_PROXY: a direct WebSocket, no new tunnel');
    });

    test('a proxy with transport amqp is refused, naming transport', (t) => {
      t.diagnostic('AMQP over TCP cannot go through an HTTP proxy; the Azure SDKs require WebSockets for one');
      assert.throws(
        () =>
          createHubClient(kind, {
            connectionString:
              `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;` + `SharedAccessKey=${KEY};EntityPath=h`,
            proxyUrl: `http://u:${PROXY_PASSWORD}@proxy:3128`,
          }),
        (e: unknown) =>
          e instanceof BackendError &&
          e.configKey === 'transport' &&
          !e.retryable &&
          !e.message.includes(PROXY_PASSWORD),
      );
    });
  });
}
