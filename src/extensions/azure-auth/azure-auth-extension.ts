import { z } from 'zod';
import type { ExtensionFactory } from '../extension-factory.ts';
import { credentialFromAzureAuth } from './azure-auth-credential.ts';

const nonEmpty = z.string().min(1);

/**
 * The `azure_auth` extension section, with the Go collector's azureauthextension keys, so a receiver
 * written as `auth: azure_auth` finds its credential here. Exactly one method is chosen.
 */
export const azureAuthConfigSchema = z
  .strictObject({
    /**
     * The DefaultAzureCredential chain (environment, workload identity, managed identity, Azure CLI). Default false.
     */
    use_default: z.boolean().default(false),
    /** A managed identity: system-assigned, or user-assigned with `client_id`. */
    managed_identity: z.strictObject({ client_id: nonEmpty.optional() }).nullish(),
    /** Kubernetes workload identity: a federated token file, as the webhook mounts it. All three keys required. */
    workload_identity: z
      .strictObject({ client_id: nonEmpty, tenant_id: nonEmpty, federated_token_file: nonEmpty })
      .optional(),
    /** An app registration with a client secret or a PEM certificate file. */
    service_principal: z
      .strictObject({
        tenant_id: nonEmpty,
        client_id: nonEmpty,
        client_secret: nonEmpty.optional(),
        client_certificate_path: nonEmpty.optional(),
      })
      .refine((s) => !!s.client_secret !== !!s.client_certificate_path, {
        message: 'give exactly one of client_secret or client_certificate_path',
        path: ['client_secret'],
      })
      .optional(),
  })
  .superRefine((c, ctx) => {
    // `managed_identity:` written with no keys parses as null and still selects the method.
    const chosen = [
      c.use_default === true,
      c.managed_identity !== undefined,
      c.workload_identity !== undefined,
      c.service_principal !== undefined,
    ].filter(Boolean).length;
    if (chosen === 0)
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'choose one of use_default, managed_identity, workload_identity or service_principal',
      });
    if (chosen > 1)
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'choose only one of use_default, managed_identity, workload_identity or service_principal',
      });
  });

export type AzureAuthConfig = z.output<typeof azureAuthConfigSchema>;

/** `azure_auth` (alias `azureauth`): lends an Entra ID credential to receivers that say `auth: <this id>`. */
export const azureAuthExtensionFactory: ExtensionFactory<AzureAuthConfig> = {
  type: 'azure_auth',
  aliases: ['azureauth'],
  stability: 'beta',
  configSchema: azureAuthConfigSchema,
  createDefaultConfig: () => ({ use_default: true }),
  async create(_settings, config) {
    // @azure/identity loads at the credential's first token request (DeferredCredential), not here.
    const credential = credentialFromAzureAuth(config);
    return {
      async start() {},
      async shutdown() {},
      credential: () => credential,
    };
  },
};
