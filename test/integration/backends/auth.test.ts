/**
 * Both backends authenticate the ways a user can configure: an Entra ID TokenCredential (CBS `jwt`,
 * over TLS, since the SDK always uses TLS with a credential) and a connection string carrying a ready
 * SharedAccessSignature. The emulator verifies SAS signatures when started with `sasKeys`, so a token
 * sent with the wrong type or signature would be refused.
 */
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { AccessToken, TokenCredential } from '@azure/core-auth';
import { createHubClient } from '../../../src/backends/create-hub-client.ts';
import type { BackendKind, HubClient, PartitionReader, ReceivedEvent } from '../../../src/backends/consumer.ts';
import { BackendError } from '../../../src/backends/consumer.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { createSelfSignedCert, trustAnyCertificate } from './self-signed-cert.ts';
import { fakeJwt } from '../../helpers/fake-jwt.ts';

const KEY_NAME = 'RootManageSharedAccessKey';
const KEY = 'YXV0aC10ZXN0LWtleS12YWx1ZQ==';
const RETRY = { maxRetries: 1, retryDelayMs: 20, maxRetryDelayMs: 100, timeoutMs: 5_000 } as const;
const EVENT_HUBS_SCOPE = 'https://eventhubs.azure.net//.default';

let tls: { cert: Buffer; key: Buffer };

before(() => {
  tls = createSelfSignedCert();
  trustAnyCertificate();
});

/** A TokenCredential that hands out an opaque token and records the scopes asked for. */
class RecordingCredential implements TokenCredential {
  readonly scopes: string[] = [];
  constructor(private readonly lifetimeMs: number) {}
  async getToken(scopes: string | string[]): Promise<AccessToken> {
    this.scopes.push(...(Array.isArray(scopes) ? scopes : [scopes]));
    return { token: fakeJwt(`test-token-${this.scopes.length}`), expiresOnTimestamp: Date.now() + this.lifetimeMs };
  }
}

async function collect(reader: PartitionReader, count: number, timeoutMs = 8_000): Promise<ReceivedEvent[]> {
  const out: ReceivedEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  while (out.length < count && Date.now() < deadline)
    out.push(...(await reader.receive(count - out.length, 300, AbortSignal.timeout(timeoutMs))));
  return out;
}

function sasToken(resource: string, keyName: string, key: string, expiresInS: number): string {
  const sr = encodeURIComponent(resource);
  const se = Math.floor(Date.now() / 1000) + expiresInS;
  const sig = encodeURIComponent(createHmac('sha256', key).update(`${sr}\n${se}`).digest('base64'));
  return `SharedAccessSignature sr=${sr}&sig=${sig}&se=${se}&skn=${encodeURIComponent(keyName)}`;
}

for (const kind of ['polling', 'streaming'] as const satisfies readonly BackendKind[]) {
  describe(`${kind} backend auth`, () => {
    test('a TokenCredential is used for jwt claims (over TLS)', async (t) => {
      const clients: HubClient[] = [];
      t.after(() => Promise.all(clients.map((c) => c.close())));
      const { emulator, hubName, consumerGroup } = await startTestEmulator(t, { sasKeys: { [KEY_NAME]: KEY }, tls });
      emulator.append(hubName, '1', [{ body: 'hello' }, { body: 'world' }]);
      const credential = new RecordingCredential(3_600_000);
      const client = createHubClient(kind, {
        credential,
        fullyQualifiedNamespace: `localhost:${emulator.port}`,
        eventHubName: hubName,
        consumerGroup,
        retry: RETRY,
      });
      clients.push(client);
      assert.equal((await client.getHubProperties()).name, hubName);
      const reader = await client.openPartition('1', { startPosition: { kind: 'earliest' } });
      const events = await collect(reader, 2);
      assert.deepEqual(
        events.map((e) => Buffer.from(e.body).toString()),
        ['hello', 'world'],
      );
      assert.ok(credential.scopes.length >= 2, 'a token for management and one for the receiver');
      assert.ok(
        credential.scopes.every((s) => s === EVENT_HUBS_SCOPE),
        credential.scopes.join(),
      );
      await reader.close();
    });

    test(
      'a connection string with a SharedAccessSignature works; an expired one fails without leaking ' + 'it',
      async (t) => {
        const clients: HubClient[] = [];
        t.after(() => Promise.all(clients.map((c) => c.close())));
        const { emulator, hubName, consumerGroup } = await startTestEmulator(t, { sasKeys: { [KEY_NAME]: KEY } });
        emulator.append(hubName, '0', [{ body: 'sas' }]);
        const endpoint = `sb://127.0.0.1:${emulator.port}/`;
        const cs = (token: string): string =>
          `Endpoint=${endpoint};SharedAccessSignature=${token};EntityPath=${hubName};UseDevelopmentEmulator=true`;
        const good = createHubClient(kind, {
          connectionString: cs(sasToken(`${endpoint}${hubName}`, KEY_NAME, KEY, 3600)),
          consumerGroup,
          retry: RETRY,
        });
        clients.push(good);
        assert.equal((await good.getHubProperties()).name, hubName);
        const reader = await good.openPartition('0', { startPosition: { kind: 'earliest' } });
        assert.equal(Buffer.from((await collect(reader, 1))[0]!.body).toString(), 'sas');
        await reader.close();

        const expired = sasToken(`${endpoint}${hubName}`, KEY_NAME, KEY, -60);
        const sig = /sig=([^&]+)/.exec(expired)![1]!;
        const bad = createHubClient(kind, { connectionString: cs(expired), consumerGroup, retry: RETRY });
        clients.push(bad);
        await assert.rejects(bad.getHubProperties(), (e: unknown) => {
          assert.ok(e instanceof BackendError && !e.retryable, String(e));
          assert.ok(!`${e.message}${e.stack}`.includes(sig) && !`${e.message}`.includes(decodeURIComponent(sig)));
          return true;
        });
      },
    );

    test('a connection string the backend cannot use is refused without quoting the key', () => {
      const secret = 'c3VwZXItc2VjcmV0LWtleQ==';
      assert.throws(
        () =>
          createHubClient(kind, {
            connectionString:
              `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;` + `SharedAccessKey=${secret}`,
          }),
        (e: unknown) =>
          e instanceof BackendError &&
          !e.retryable &&
          !e.message.includes(secret) &&
          /EntityPath|eventHubName/.test(e.message),
      );
    });
  });
}
