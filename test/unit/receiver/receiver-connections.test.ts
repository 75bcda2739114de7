import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AccessToken, TokenCredential } from '@azure/core-auth';
import type { ContainerClient } from '@azure/storage-blob';
import { parseReceiverConfig } from '../../../src/config/parse-receiver-config.ts';
import type { ReceiverConfig } from '../../../src/config/receiver-config.ts';
import { ConfigError } from '../../../src/component/errors.ts';
import type { StorageError } from '../../../src/ownership/storage-errors.ts';
import {
  checkpointContainer,
  ensureCheckpointContainer,
  proxyForLog,
  receiverCredential,
  storageOptions,
} from '../../../src/receiver/internal/receiver-connections.ts';

const CONN =
  'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=c2VjcmV0S2V5VmFsdWU=;' +
  'EntityPath=hub';
const STORAGE = 'DefaultEndpointsProtocol=https;AccountName=a;AccountKey=a2V5;EndpointSuffix=core.windows.net';
const credential: TokenCredential = {
  getToken: async (): Promise<AccessToken> => ({ token: 't', expiresOnTimestamp: Date.now() + 60_000 }),
};
const config = (extra: Record<string, unknown> = {}): ReceiverConfig =>
  parseReceiverConfig({ connection: CONN, ...extra });

test("receiverCredential: the settings' credential wins; an auth extension id is resolved or refused by name", () => {
  assert.equal(receiverCredential(config(), {}), undefined);
  assert.equal(receiverCredential(config({ auth: 'azure_auth' }), { credential }), credential);
  assert.equal(
    receiverCredential(config({ auth: 'azure_auth' }), {
      resolveAuth: (id) => (id === 'azure_auth' ? credential : undefined),
    }),
    credential,
  );
  assert.throws(
    () => receiverCredential(config({ auth: 'nope' }), { resolveAuth: () => undefined }),
    (e: unknown) => e instanceof ConfigError && /auth: no auth extension named 'nope' is configured/.test(e.message),
  );
});

test('receiverCredential: an inline auth object is built, or refused with its path', () => {
  assert.ok(receiverCredential({ ...config(), auth: { type: 'managed_identity' } } as ReceiverConfig, {}));
  assert.throws(
    () => receiverCredential({ ...config(), auth: { type: 'service_principal' } } as ReceiverConfig, {}),
    (e: unknown) => e instanceof ConfigError && /auth\./.test(e.message),
  );
});

test('checkpointContainer: none without a blob store; a storage account URL without a credential is refused', () => {
  assert.equal(checkpointContainer(config(), undefined), undefined);
  const byKey = checkpointContainer(
    config({ blob_checkpoint_store: { connection: STORAGE, container_name: 'ckpt' } }),
    undefined,
  );
  assert.equal(byKey?.containerName, 'ckpt');
  const byUrl = config({
    blob_checkpoint_store: { storage_account_url: 'https://a.blob.core.windows.net', container_name: 'ckpt' },
  });
  assert.throws(
    () => checkpointContainer(byUrl, undefined),
    (e: unknown) => e instanceof ConfigError && /storage_account_url: needs auth/.test(e.message),
  );
  assert.equal(checkpointContainer(byUrl, credential)?.containerName, 'ckpt');
});

test('storageOptions and proxyForLog: proxy_url for storage; the logged proxy never shows its password', () => {
  const proxied = config({ transport: 'amqp_websockets', proxy_url: 'http://user:s3cret@proxy.local:3128' });
  assert.ok(storageOptions(proxied).proxyOptions, 'storage goes through proxy_url');
  const logged = proxyForLog('ns.servicebus.windows.net:443', 'http://user:s3cret@proxy.local:3128');
  assert.match(logged, /proxy\.local:3128/);
  assert.doesNotMatch(logged, /s3cret/);
  assert.equal(proxyForLog('ns.servicebus.windows.net', 'not a url'), 'invalid');
});

/** A container whose createIfNotExists fails `failures` times, then succeeds. */
function flakyContainer(failures: number): { container: ContainerClient; calls: () => number } {
  let calls = 0;
  const container = {
    createIfNotExists: async () => {
      calls++;
      if (calls <= failures)
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
      return {};
    },
  } as unknown as ContainerClient;
  return { container, calls: () => calls };
}

test(
  'ensureCheckpointContainer: only with create_container; retries after a failure, reporting it; gives up on ' +
    'abort',
  async (t) => {
    // The backoff's timer does not hold the process open (the receiver keeps it alive); the test must.
    const alive = setInterval(() => {}, 1_000);
    t.after(() => clearInterval(alive));
    const store = { connection: STORAGE, container_name: 'ckpt' };
    const never = flakyContainer(0);
    assert.equal(
      await ensureCheckpointContainer(
        never.container,
        config({ blob_checkpoint_store: { ...store, create_container: false } }),
        AbortSignal.timeout(5_000),
        () => {},
      ),
      true,
    );
    assert.equal(never.calls(), 0, 'not asked to create it');

    const creating = config({ blob_checkpoint_store: { ...store, create_container: true } });
    const failures: StorageError[] = [];
    const once = flakyContainer(1);
    assert.equal(
      await ensureCheckpointContainer(once.container, creating, AbortSignal.timeout(10_000), (e) => failures.push(e)),
      true,
    );
    assert.equal(once.calls(), 2, 'tried again after the backoff');
    assert.equal(failures.length, 1);

    const stop = new AbortController();
    const down = flakyContainer(Number.POSITIVE_INFINITY);
    const ended = ensureCheckpointContainer(down.container, creating, stop.signal, () => stop.abort());
    assert.equal(await ended, false, 'aborted during its backoff');
  },
);
