import type { TokenCredential } from '@azure/core-auth';
import type { ContainerClient } from '@azure/storage-blob';
import { checkpointContainerClient } from '../../ownership/checkpoint-container.ts';
import { alternateNamespaces } from '../../ownership/namespace-spellings.ts';
import { storageProxySettings } from '../../component/network-proxy.ts';
import type { HubClient } from '../../backends/consumer.ts';
import { createHubClient } from '../../backends/create-hub-client.ts';
import { authConfigSchema, createTokenCredential } from '../../component/credential.ts';
import { noopLogger } from '../../component/logger.ts';
import type { CheckpointScope } from '../../ownership/checkpoint.ts';
import type { ReceiverConfig } from '../../config/receiver-config.ts';
import type { ResolvedConfig } from '../resolve-config.ts';
import { UsageError } from '../usage-error.ts';

/** The hub and checkpoint container one receiver of the config uses, for the `checkpoints` command. */
export interface ReceiverStores {
  readonly receiverId: string;
  readonly hub: HubClient;
  readonly container: ContainerClient;
  readonly containerName: string;
  readonly scope: CheckpointScope;
  close(): Promise<void>;
}

/** Picks the receiver: the one named, or the only one. */
function pickReceiver(config: ResolvedConfig, receiverId: string | undefined): { id: string; config: ReceiverConfig } {
  const ids = [...config.receivers.keys()];
  if (receiverId !== undefined) {
    const r = config.receivers.get(receiverId);
    if (!r) throw new UsageError(`--receiver: '${receiverId}' is not configured; receivers: ${ids.join(', ')}`);
    return { id: receiverId, config: r.config as ReceiverConfig };
  }
  if (ids.length !== 1)
    throw new UsageError(`the config has ${ids.length} receivers (${ids.join(', ')}); name one with --receiver`);
  return { id: ids[0]!, config: config.receivers.get(ids[0]!)!.config as ReceiverConfig };
}

/** The receiver's Entra ID credential, the way the running service would resolve it. */
async function credentialFor(config: ResolvedConfig, receiver: ReceiverConfig): Promise<TokenCredential | undefined> {
  const auth = receiver.auth;
  if (auth === undefined) return undefined;
  if (typeof auth === 'string') {
    const ext = config.extensions.get(auth);
    if (!ext) return undefined;
    const instance = await ext.factory.create({ id: auth, logger: noopLogger }, ext.config);
    return instance.credential?.();
  }
  return createTokenCredential(authConfigSchema.parse(auth));
}

/** Opens (lazily: nothing connects until the first call) the hub and the checkpoint container of a receiver. */
export async function openReceiverStores(
  config: ResolvedConfig,
  receiverId: string | undefined,
): Promise<ReceiverStores> {
  const picked = pickReceiver(config, receiverId);
  const r = picked.config;
  const b = r.blob_checkpoint_store;
  if (!b)
    throw new UsageError(
      `receivers.${picked.id} has no blob_checkpoint_store: its checkpoints live in memory only, there is nothing ` +
        `to list or reset`,
    );
  const credential = await credentialFor(config, r);
  const proxyOptions = storageProxySettings(r.proxy_url);
  const container = checkpointContainerClient(b, credential, proxyOptions ? { proxyOptions } : undefined);
  if (!container)
    throw new UsageError(
      `receivers.${picked.id}.blob_checkpoint_store.storage_account_url needs auth (an Entra ID credential)`,
    );
  const hub = createHubClient(r.backend ?? 'polling', {
    connectionString: r.connection,
    credential: r.connection ? undefined : credential,
    fullyQualifiedNamespace: r.event_hub.namespace,
    eventHubName: r.event_hub.name,
    consumerGroup: r.group,
    transport: r.transport,
    proxyUrl: r.proxy_url,
    // An operator command: fail fast instead of the SDK's 3 × 30 s retries.
    retry: { maxRetries: 1, retryDelayMs: 500, maxRetryDelayMs: 2_000, timeoutMs: 15_000 },
  });
  return {
    receiverId: picked.id,
    hub,
    container,
    containerName: b.container_name,
    scope: {
      fullyQualifiedNamespace: hub.fullyQualifiedNamespace,
      eventHubName: hub.eventHubName,
      consumerGroup: r.group,
      alternateNamespaces: alternateNamespaces(r.connection, hub.fullyQualifiedNamespace),
    },
    close: () => hub.close(),
  };
}
