import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ClientCertificateCredential,
  ClientSecretCredential,
  DefaultAzureCredential,
  ManagedIdentityCredential,
  WorkloadIdentityCredential,
} from '@azure/identity';
import { noopLogger } from '../../../src/component/logger.ts';
import { DeferredCredential } from '../../../src/component/credential.ts';
import {
  azureAuthConfigSchema,
  azureAuthExtensionFactory,
} from '../../../src/extensions/azure-auth/azure-auth-extension.ts';

async function credentialOf(section: unknown) {
  const config = azureAuthConfigSchema.parse(section);
  const ext = await azureAuthExtensionFactory.create({ id: 'azure_auth', logger: noopLogger }, config);
  const credential = ext.credential!();
  assert.ok(credential instanceof DeferredCredential, '@azure/identity loads at the first token request');
  return credential.resolve();
}

test('each Go azureauthextension method builds its @azure/identity credential', async () => {
  assert.ok((await credentialOf({ use_default: true })) instanceof DefaultAzureCredential);
  assert.ok(
    (await credentialOf({ managed_identity: null })) instanceof ManagedIdentityCredential,
    'managed_identity: with no keys is system-assigned',
  );
  assert.ok((await credentialOf({ managed_identity: { client_id: 'c' } })) instanceof ManagedIdentityCredential);
  assert.ok(
    (await credentialOf({
      workload_identity: { client_id: 'c', tenant_id: 't', federated_token_file: '/tmp/token' },
    })) instanceof WorkloadIdentityCredential,
  );
  assert.ok(
    (await credentialOf({ service_principal: { tenant_id: 't', client_id: 'c', client_secret: 's' } })) instanceof
      ClientSecretCredential,
  );
  assert.ok(
    (await credentialOf({
      service_principal: { tenant_id: 't', client_id: 'c', client_certificate_path: '/tmp/cert.pem' },
    })) instanceof ClientCertificateCredential,
  );
});

test('exactly one method; incomplete methods name the missing keys', () => {
  const issues = (section: unknown) =>
    azureAuthConfigSchema.safeParse(section).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
  assert.match(issues({})[0]!, /choose one of use_default, managed_identity, workload_identity or service_principal/);
  assert.match(issues({ use_default: true, managed_identity: {} })[0]!, /choose only one/);
  assert.deepEqual(
    issues({ workload_identity: { client_id: 'c' } }).map((l) => l.split(':')[0]),
    ['workload_identity.tenant_id', 'workload_identity.federated_token_file'],
  );
  assert.match(
    issues({ service_principal: { tenant_id: 't', client_id: 'c' } })[0]!,
    /^service_principal\.client_secret: give exactly one of client_secret or client_certificate_path/,
  );
  assert.equal(issues({ use_default: false }).length, 1, 'use_default: false chooses nothing');
});
