/**
 * Which config keys a backend's settings came from, so a permanent failure can name the one to fix
 * (docs/backends.md, "Errors"). The backends see HubClientOptions, not the YAML: these are inferred from
 * what was given (a credential means `auth`, a hub name given apart from the connection string means
 * `event_hub.name`).
 */
import type { OpenOptions } from '../consumer.ts';
import { BackendError } from '../consumer.ts';
import type { HubClientOptions } from '../hub-client-options.ts';
import type { ConfigKeys } from './classify-error.ts';
import { redact } from '../../component/redact.ts';

export function configKeysOf(options: HubClientOptions): ConfigKeys {
  return {
    hub: options.eventHubName ? 'event_hub.name' : 'connection',
    auth: options.credential && !options.connectionString ? 'auth' : 'connection',
    ...(options.transport === 'amqp_websockets' ? { proxy: options.proxyUrl ? 'proxy_url' : 'HTTPS_PROXY' } : {}),
  };
}

/** The config key a reader's start position came from (OpenOptions.startPositionKey, else by its kind). */
export function startPositionKeyOf(options: OpenOptions): string {
  if (options.startPositionKey) return options.startPositionKey;
  switch (options.startPosition.kind) {
    case 'offset':
      return 'offset';
    case 'sequenceNumber':
      return 'partition_start';
    default:
      return 'start_position';
  }
}

/** The error a HubClient constructor throws for settings it cannot use (a bad connection string, ...). */
export function invalidConfiguration(backend: string, error: unknown, options: HubClientOptions): BackendError {
  const configKey = options.connectionString ? 'connection' : 'auth';
  const hint =
    configKey === 'connection'
      ? 'Give connection as Endpoint=sb://<namespace>/;SharedAccessKeyName=...;SharedAccessKey=... with EntityPath, ' +
        'or set event_hub.name.'
      : 'Give auth with event_hub.namespace and event_hub.name, or give connection.';
  const text = redact(error instanceof Error ? error.message : String(error));
  return new BackendError(`${backend} backend: ${text} (check ${configKey})`, {
    retryable: false,
    permanent: true,
    configKey,
    hint,
    code: 'InvalidConfiguration',
  });
}
