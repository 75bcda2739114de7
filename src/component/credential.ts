/**
 * Entra ID credentials for the hub and the checkpoint store, from the `auth` section of the config.
 * The keys follow the Go collector's `azureauth` extension (`client_id`, `tenant_id`, `client_secret`,
 * `token_file_path`) so a config written for it reads the same here.
 */
import type { AccessToken, GetTokenOptions, TokenCredential } from '@azure/core-auth';
import type * as IdentityModule from '@azure/identity';
import { z } from 'zod';

type Identity = typeof IdentityModule;
let identity: Promise<Identity> | undefined;

/**
 * `@azure/identity`, loaded on first use. Most deployments authenticate with connection strings, and
 * loading it costs about 0.25 s of CPU at every start of the CLI, of a decode thread and of a test process.
 */
export function loadIdentity(): Promise<Identity> {
  identity ??= import('@azure/identity');
  return identity;
}

/**
 * A credential built from `@azure/identity` at its first token request (the library loads then). The
 * credentials built here make no network call before that either, so nothing observable moves, except that
 * an error of the constructor (e.g. a malformed tenant id) is the first token request's error.
 */
export class DeferredCredential implements TokenCredential {
  readonly #build: (identity: Identity) => TokenCredential;
  #real: Promise<TokenCredential> | undefined;

  constructor(build: (identity: Identity) => TokenCredential) {
    this.#build = build;
  }

  /** The credential this one stands for, built now if it was not yet. */
  resolve(): Promise<TokenCredential> {
    this.#real ??= loadIdentity().then((id) => this.#build(id));
    return this.#real;
  }

  async getToken(scopes: string | string[], options?: GetTokenOptions): Promise<AccessToken | null> {
    return (await this.resolve()).getToken(scopes, options);
  }
}

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
export const authConfigSchema = z.discriminatedUnion('type', [
  defaultAuth,
  managedIdentityAuth,
  workloadIdentityAuth,
  servicePrincipalAuth,
]);

export type AuthConfig = z.infer<typeof authConfigSchema>;

/**
 * The `@azure/identity` credential an `auth` object describes, built at its first token request
 * (DeferredCredential). No network call happens here.
 */
export function createTokenCredential(auth: AuthConfig): DeferredCredential {
  return new DeferredCredential((id) => {
    switch (auth.type) {
      case 'default':
        return auth.client_id
          ? new id.DefaultAzureCredential({ managedIdentityClientId: auth.client_id })
          : new id.DefaultAzureCredential();
      case 'managed_identity':
        return auth.client_id
          ? new id.ManagedIdentityCredential({ clientId: auth.client_id })
          : new id.ManagedIdentityCredential();
      case 'workload_identity':
        return new id.WorkloadIdentityCredential({
          ...(auth.client_id ? { clientId: auth.client_id } : {}),
          ...(auth.tenant_id ? { tenantId: auth.tenant_id } : {}),
          ...(auth.token_file_path ? { tokenFilePath: auth.token_file_path } : {}),
        });
      case 'service_principal':
        return new id.ClientSecretCredential(auth.tenant_id, auth.client_id, auth.client_secret);
    }
  });
}
