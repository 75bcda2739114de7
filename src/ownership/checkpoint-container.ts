import type { TokenCredential } from '@azure/core-auth';
import { BlobServiceClient, type ContainerClient, type StoragePipelineOptions } from '@azure/storage-blob';

/** The `blob_checkpoint_store` keys that say where the container is. */
export interface CheckpointContainerConfig {
  readonly connection?: string;
  readonly storage_account_url?: string;
  readonly container_name: string;
}

/**
 * The container holding ownership and checkpoint blobs: from a storage connection string, or from the
 * account URL with an Entra ID credential. Undefined when only a URL is given and there is no credential
 * (the caller reports that in its own terms). Nothing connects here.
 */
export function checkpointContainerClient(
  config: CheckpointContainerConfig,
  credential: TokenCredential | undefined,
  /** Storage pipeline options, e.g. `proxyOptions` from `proxy_url`. Default none. */
  options?: StoragePipelineOptions,
): ContainerClient | undefined {
  const name = config.container_name;
  if (config.connection)
    return BlobServiceClient.fromConnectionString(config.connection, options).getContainerClient(name);
  if (config.storage_account_url && credential) {
    return new BlobServiceClient(config.storage_account_url, credential, options).getContainerClient(name);
  }
  return undefined;
}
