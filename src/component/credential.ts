/**
 * Entra ID credentials for the hub and the checkpoint store, from the `auth` section of the config.
 * The keys follow the Go collector's `azureauth` extension (`client_id`, `tenant_id`, `client_secret`,
 * `token_file_path`) so a config written for it reads the same here.
 */
import type { TokenCredential } from '@azure/core-auth';
import { ClientSecretCredential, DefaultAzureCredential, ManagedIdentityCredential, WorkloadIdentityCredential } from '@azure/identity';
import { z } from 'zod';

const nonEmpty = z.string().min(1);

/** `{ type: 'default' }`: the DefaultAzureCredential chain; `client_id` picks a user-assigned managed identity. */
const defaultAuth = z.strictObject({ type: z.literal('default'), client_id: nonEmpty.optional() });
/** `{ type: 'managed_identity' }`: system-assigned, or user-assigned when `client_id` is set. */
const managedIdentityAuth = z.strictObject({ type: z.literal('managed_identity'), client_id: nonEmpty.optional() });
/**
 * `{ type: 'workload_identity' }`: a federated token file (Kubernetes workload identity). Missing values
 * come from AZURE_CLIENT_ID, AZURE_TENANT_ID and AZURE_FEDERATED_TOKEN_FILE, as the webhook sets them.
 */
const workloadIdentityAuth = z.strictObject({
  type: z.literal('workload_identity'),
  client_id: nonEmpty.optional(),
  tenant_id: nonEmpty.optional(),
  token_file_path: nonEmpty.optional(),
});
/** `{ type: 'service_principal' }`: an app registration with a client secret. */
const servicePrincipalAuth = z.strictObject({
  type: z.literal('service_principal'),
  tenant_id: nonEmpty,
  client_id: nonEmpty,
  client_secret: nonEmpty,
});

/** The `auth` object: one of the four Entra ID credential kinds, discriminated by `type`. */
export const authConfigSchema = z.discriminatedUnion('type', [defaultAuth, managedIdentityAuth, workloadIdentityAuth, servicePrincipalAuth]);

export type AuthConfig = z.infer<typeof authConfigSchema>;

/** Builds the `@azure/identity` credential an `auth` object describes. No network call happens here. */
export function createTokenCredential(auth: AuthConfig): TokenCredential {
  switch (auth.type) {
    case 'default':
      return auth.client_id ? new DefaultAzureCredential({ managedIdentityClientId: auth.client_id }) : new DefaultAzureCredential();
    case 'managed_identity':
      return auth.client_id ? new ManagedIdentityCredential({ clientId: auth.client_id }) : new ManagedIdentityCredential();
    case 'workload_identity':
      return new WorkloadIdentityCredential({
        ...(auth.client_id ? { clientId: auth.client_id } : {}),
        ...(auth.tenant_id ? { tenantId: auth.tenant_id } : {}),
        ...(auth.token_file_path ? { tokenFilePath: auth.token_file_path } : {}),
      });
    case 'service_principal':
      return new ClientSecretCredential(auth.tenant_id, auth.client_id, auth.client_secret);
  }
}
