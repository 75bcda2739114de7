/** The receiver's `capture` section as a source of capture files, one reader per partition. */
import type { TokenCredential } from '@azure/core-auth';
import type { StoragePipelineOptions } from '@azure/storage-blob';
import { CapturePartitionReader, type CaptureLocation } from '../../capture/capture-reader.ts';
import { ConfigError } from '../../component/errors.ts';
import type { ReceiverConfig } from '../../config/receiver-config.ts';
import { checkpointContainerClient } from '../../ownership/checkpoint-container.ts';

/** `{Namespace}` of a namespace host: its first label (`myns` of `myns.servicebus.windows.net`). */
export function namespaceName(fullyQualifiedNamespace: string): string {
  return fullyQualifiedNamespace.replace(/^[a-z]+:\/\//i, '').split(/[.:/]/)[0] ?? fullyQualifiedNamespace;
}

/**
 * Where the capture files are: the section's own account, else the checkpoint store's (as `dead_letter`
 * falls back); undefined when `capture` is not set. Throws a ConfigError when no account can be reached.
 */
export function captureLocation(
  config: ReceiverConfig,
  hub: { fullyQualifiedNamespace: string; eventHubName: string },
  credential: TokenCredential | undefined,
  storageOptions?: StoragePipelineOptions,
): CaptureLocation | undefined {
  const c = config.capture;
  if (!c) return undefined;
  const own = c.connection || c.storage_account_url;
  const account = own ? c : config.blob_checkpoint_store;
  const container = account
    ? checkpointContainerClient(
        {
          connection: account.connection,
          storage_account_url: account.storage_account_url,
          container_name: c.container_name,
        },
        credential,
        storageOptions,
      )
    : undefined;
  if (!container)
    throw new ConfigError([
      'capture.connection: required (or storage_account_url with a credential) to read Capture files',
    ]);
  return {
    container,
    archiveNameFormat: c.archive_name_format,
    namespace: c.namespace ?? namespaceName(hub.fullyQualifiedNamespace),
    eventHub: hub.eventHubName,
  };
}

/** One reader per partition, made on demand. */
export function capturePartitions(location: CaptureLocation): (partitionId: string) => CapturePartitionReader {
  return (partitionId) => new CapturePartitionReader(location, partitionId);
}
