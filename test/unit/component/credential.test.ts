import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  ClientSecretCredential,
  DefaultAzureCredential,
  ManagedIdentityCredential,
  WorkloadIdentityCredential,
} from '@azure/identity';
import { authConfigSchema, createTokenCredential } from '../../../src/component/credential.ts';

describe('authConfigSchema', () => {
  test('accepts the four kinds', () => {
    for (const auth of [
      { type: 'default' },
      { type: 'default', client_id: 'c' },
      { type: 'managed_identity' },
      { type: 'managed_identity', client_id: 'c' },
      { type: 'workload_identity', client_id: 'c', tenant_id: 't', token_file_path: '/var/run/token' },
      { type: 'service_principal', tenant_id: 't', client_id: 'c', client_secret: 's' },
    ]) {
      assert.ok(authConfigSchema.safeParse(auth).success, JSON.stringify(auth));
    }
  });

  test('rejects an unknown type, unknown keys and a service principal without its secret', () => {
    assert.equal(authConfigSchema.safeParse({ type: 'certificate' }).success, false);
    assert.equal(authConfigSchema.safeParse({ type: 'default', clientid: 'x' }).success, false);
    const r = authConfigSchema.safeParse({ type: 'service_principal', tenant_id: 't', client_id: 'c' });
    assert.equal(r.success, false);
    assert.deepEqual(
      r.error?.issues.map((i) => i.path.join('.')),
      ['client_secret'],
    );
  });
});

describe('createTokenCredential', () => {
  test('builds the matching @azure/identity credential, loading @azure/identity at the first use', async () => {
    const built = (auth: Parameters<typeof createTokenCredential>[0]) => createTokenCredential(auth).resolve();
    assert.ok((await built({ type: 'default' })) instanceof DefaultAzureCredential);
    assert.ok((await built({ type: 'default', client_id: 'c' })) instanceof DefaultAzureCredential);
    assert.ok((await built({ type: 'managed_identity', client_id: 'c' })) instanceof ManagedIdentityCredential);
    assert.ok((await built({ type: 'managed_identity' })) instanceof ManagedIdentityCredential);
    assert.ok(
      (await built({
        type: 'workload_identity',
        client_id: 'c',
        tenant_id: 't',
        token_file_path: '/nonexistent',
      })) instanceof WorkloadIdentityCredential,
    );
    assert.ok(
      (await built({ type: 'service_principal', tenant_id: 't', client_id: 'c', client_secret: 's' })) instanceof
        ClientSecretCredential,
    );
  });

  test('a workload identity with a missing token file fails at getToken, not at construction', async () => {
    const cred = createTokenCredential({
      type: 'workload_identity',
      client_id: '00000000-0000-0000-0000-000000000001',
      tenant_id: '00000000-0000-0000-0000-000000000002',
      token_file_path: '/nonexistent/token',
    });
    await assert.rejects(cred.getToken('https://eventhubs.azure.net/.default'));
  });
});
