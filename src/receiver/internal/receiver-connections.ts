/**
 * What the receiver connects with, from its config: the credential, the checkpoint container (created when
 * configured to, retried until it exists), blob storage's proxy settings, and the AMQP proxy as logged.
 */
import type { ContainerClient } from '@azure/storage-blob';
import type { TokenCredential } from '@azure/core-auth';
import type { ReceiverConfig } from '../../config/receiver-config.ts';
import { authConfigSchema, createTokenCredential } from '../../component/credential.ts';
import { ConfigError } from '../../component/errors.ts';
import { redactProxyUrl, resolveProxy, storageProxySettings } from '../../component/network-proxy.ts';
import { checkpointContainerClient } from '../../ownership/checkpoint-container.ts';
import { toStorageError, type StorageError } from '../../ownership/storage-errors.ts';
import { pause } from '../../component/abort.ts';
import { backoffDelayMs } from '../../component/backoff.ts';
import type { ReceiverCreateSettings } from '../receiver.ts';

/** The credential for `auth` (inline, or an auth extension's id) or the one the settings give; throws ConfigError. */
export function receiverCredential(
  config: ReceiverConfig,
  settings: Pick<ReceiverCreateSettings, 'credential' | 'resolveAuth'>,
): TokenCredential | undefined {
  if (settings.credential) return settings.credential;
  const auth = config.auth;
  if (auth === undefined) return undefined;
  if (typeof auth === 'string') {
    const resolved = settings.resolveAuth?.(auth);
    if (!resolved) throw new ConfigError([`auth: no auth extension named '${auth}' is configured`]);
    return resolved;
  }
  const parsed = authConfigSchema.safeParse(auth);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `auth.${i.path.join('.')}: ${i.message}`));
  return createTokenCredential(parsed.data);
}

/** Blob storage goes through `proxy_url` too; without it the storage SDK reads HTTPS_PROXY/NO_PROXY itself. */
export function storageOptions(config: ReceiverConfig): { proxyOptions?: ReturnType<typeof storageProxySettings> } {
  const proxyOptions = storageProxySettings(config.proxy_url);
  return proxyOptions ? { proxyOptions } : {};
}

/** The checkpoint container of `blob_checkpoint_store`, undefined without one; throws ConfigError. */
export function checkpointContainer(
  config: ReceiverConfig,
  credential: TokenCredential | undefined,
): ContainerClient | undefined {
  const b = config.blob_checkpoint_store;
  if (!b) return undefined;
  const container = checkpointContainerClient(b, credential, storageOptions(config));
  if (!container)
    throw new ConfigError(['blob_checkpoint_store.storage_account_url: needs auth (an Entra ID credential)']);
  return container;
}

/** The proxy AMQP over WebSockets uses for `namespace`, credentials masked (`direct` when none applies). */
export function proxyForLog(namespace: string, proxyUrl: string | undefined): string {
  try {
    const proxy = resolveProxy(namespace.replace(/:\d+$/, ''), proxyUrl);
    return proxy ? redactProxyUrl(proxy) : 'direct';
  } catch {
    return 'invalid';
  }
}

/**
 * Creates the container when `create_container` asks for it, retrying with backoff (1 s doubling to 60 s)
 * and calling `onFailure` for each failed attempt; false when `signal` aborted first.
 */
export async function ensureCheckpointContainer(
  container: ContainerClient | undefined,
  config: ReceiverConfig,
  signal: AbortSignal,
  onFailure: (error: StorageError) => void,
): Promise<boolean> {
  if (!container || !config.blob_checkpoint_store?.create_container) return true;
  for (let attempt = 1; ; attempt++) {
    try {
      await container.createIfNotExists({ abortSignal: AbortSignal.any([signal, AbortSignal.timeout(30_000)]) });
      return true;
    } catch (error) {
      if (signal.aborted) return false;
      onFailure(toStorageError(error));
      if (!(await pause(backoffDelayMs(attempt, 1_000, 60_000), signal))) return false;
    }
  }
}
