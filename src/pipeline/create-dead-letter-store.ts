import type { TokenCredential } from '@azure/core-auth';
import type { StoragePipelineOptions } from '@azure/storage-blob';
import { ConfigError } from '../component/errors.ts';
import type { DeadLetterStore } from './dead-letter.ts';
import { DirectoryDeadLetterStore } from './directory-dead-letter-store.ts';
import { BlobDeadLetterStore } from './blob-dead-letter-store.ts';

/** The `dead_letter` section: exactly one of `directory` or `container`. */
export interface DeadLetterStoreConfig {
  /** A directory of JSON-lines files. */
  readonly directory?: string;
  /** A blob container of JSON-lines append blobs. */
  readonly container?: string;
  /** Storage connection string for `container`. Default: the fallback account. */
  readonly connection?: string;
  /** Storage account URL for `container`, used with an Entra ID credential. Default: the fallback account. */
  readonly storage_account_url?: string;
}

export interface CreateDeadLetterStoreOptions {
  /** The account to use when `container` has no `connection` of its own (the checkpoint store's). */
  readonly fallback?: { readonly connection?: string; readonly storage_account_url?: string };
  /** Credential for a `storage_account_url`. Default `DefaultAzureCredential` from `@azure/identity`. */
  readonly credential?: TokenCredential;
  /** Storage client pipeline options (e.g. `proxyOptions` from `proxy_url`). Default none. */
  readonly storageOptions?: StoragePipelineOptions;
}

/** Builds the configured dead-letter store; throws a ConfigError (no secrets in it) when the section is incomplete. */
export async function createDeadLetterStore(
  config: DeadLetterStoreConfig,
  options: CreateDeadLetterStoreOptions = {},
): Promise<DeadLetterStore> {
  if (config.directory && config.container)
    throw new ConfigError(['dead_letter: give either directory or container, not both']);
  if (config.directory) return new DirectoryDeadLetterStore(config.directory);
  if (!config.container) throw new ConfigError(['dead_letter: give directory or container']);
  const own = config.connection || config.storage_account_url;
  const connection = own ? config.connection : options.fallback?.connection;
  const url = own ? config.storage_account_url : options.fallback?.storage_account_url;
  if (connection) return BlobDeadLetterStore.fromConnectionString(connection, config.container, options.storageOptions);
  if (url) {
    const credential = options.credential ?? new (await import('@azure/identity')).DefaultAzureCredential();
    return BlobDeadLetterStore.fromUrl(url, config.container, credential, options.storageOptions);
  }
  throw new ConfigError([
    'dead_letter.connection: required for a dead-letter container when there is no blob_checkpoint_store',
  ]);
}
