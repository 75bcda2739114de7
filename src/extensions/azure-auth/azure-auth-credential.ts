import { createTokenCredential, DeferredCredential } from '../../component/credential.ts';
import type { AzureAuthConfig } from './azure-auth-extension.ts';

/** Builds the credential the section describes; no network call happens until a token is requested. */
export function credentialFromAzureAuth(config: AzureAuthConfig): DeferredCredential {
  if (config.service_principal) {
    const sp = config.service_principal;
    const certificatePath = sp.client_certificate_path;
    if (certificatePath) {
      return new DeferredCredential(
        (id) => new id.ClientCertificateCredential(sp.tenant_id, sp.client_id, { certificatePath }),
      );
    }
    return createTokenCredential({
      type: 'service_principal',
      tenant_id: sp.tenant_id,
      client_id: sp.client_id,
      client_secret: sp.client_secret!,
    });
  }
  if (config.workload_identity) {
    const w = config.workload_identity;
    return createTokenCredential({
      type: 'workload_identity',
      client_id: w.client_id,
      tenant_id: w.tenant_id,
      token_file_path: w.federated_token_file,
    });
  }
  if (config.managed_identity !== undefined) {
    const id = config.managed_identity?.client_id;
    return createTokenCredential(id ? { type: 'managed_identity', client_id: id } : { type: 'managed_identity' });
  }
  return createTokenCredential({ type: 'default' });
}
