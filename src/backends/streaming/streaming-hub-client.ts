/**
 * The `streaming` backend, the legacy model: a HubClient speaking AMQP 1.0 directly with
 * `rhea-promise`, using `@azure/core-amqp` for the connection settings, CBS, request-response links,
 * error translation and retry. One connection per HubClient, one receiver link per open reader.
 */
import type { ConnectionConfig } from '@azure/core-amqp';
import type { SasTokenProvider } from '@azure/core-amqp';
import {
  ConnectionConfig as ConnectionConfigFactory,
  createSasTokenProvider,
  parseConnectionString,
} from '@azure/core-amqp';
import type {
  BackendKind,
  HubClient,
  HubProperties,
  OpenOptions,
  PartitionProperties,
  PartitionReader,
} from '../consumer.ts';
import { BackendError } from '../consumer.ts';
import type { HubClientOptions } from '../hub-client-options.ts';
import type { ConfigKeys } from '../internal/classify-error.ts';
import { toBackendError } from '../internal/classify-error.ts';
import { configKeysOf, invalidConfiguration } from '../internal/config-keys.ts';
import type { ResolvedRetry } from '../internal/defaults.ts';
import { DEFAULT_CONSUMER_GROUP, resolveRetry } from '../internal/defaults.ts';
import { webSocketSettings } from '../internal/websocket-options.ts';
import { AmqpConnection } from './amqp-connection.ts';
import type { TokenSource } from './cbs-authorizer.ts';
import { CbsAuthorizer } from './cbs-authorizer.ts';
import { DEFAULT_SAS_TOKEN_LIFETIME_MS, resolveSasTokenLifetimeMs, signSasToken } from '../internal/token-lifetime.ts';
import { ManagementClient } from './management-client.ts';
import { StreamingPartitionReader } from './streaming-partition-reader.ts';
import { guardRheaLogs } from '../internal/rhea-log-guard.ts';

/** A SasTokenProvider like core-amqp's, whose tokens live `lifetimeMs` instead of its fixed hour. */
function sasProviderWithLifetime(keyName: string, key: string, lifetimeMs: number): SasTokenProvider {
  return {
    isSasTokenProvider: true,
    async getToken(audience: string) {
      const expiresOnTimestamp = Math.floor((Date.now() + lifetimeMs) / 1000);
      return { token: signSasToken(keyName, key, audience, expiresOnTimestamp), expiresOnTimestamp };
    },
  };
}

interface ParsedTarget {
  readonly config: ConnectionConfig;
  readonly source: TokenSource;
}

/** The connection settings and token source, the way the SDK derives them from its constructor arguments. */
function parseTarget(options: HubClientOptions): ParsedTarget {
  if (options.connectionString) {
    const config = ConnectionConfigFactory.create(options.connectionString, options.eventHubName);
    if (!config.entityPath) throw new TypeError('the connection string has no EntityPath; set eventHubName');
    if (options.eventHubName && config.entityPath !== options.eventHubName)
      throw new TypeError(`EntityPath '${config.entityPath}' differs from eventHubName '${options.eventHubName}'`);
    ConnectionConfigFactory.validate(config, { isEntityPathRequired: true });
    const parsed = parseConnectionString<{
      SharedAccessKeyName?: string;
      SharedAccessKey?: string;
      SharedAccessSignature?: string;
    }>(options.connectionString);
    const lifetimeMs = resolveSasTokenLifetimeMs(options.sasTokenLifetimeMs);
    const provider = parsed.SharedAccessSignature
      ? createSasTokenProvider({ sharedAccessSignature: parsed.SharedAccessSignature })
      : lifetimeMs === DEFAULT_SAS_TOKEN_LIFETIME_MS
        ? createSasTokenProvider({
            sharedAccessKeyName: parsed.SharedAccessKeyName ?? '',
            sharedAccessKey: parsed.SharedAccessKey ?? '',
          })
        : sasProviderWithLifetime(parsed.SharedAccessKeyName ?? '', parsed.SharedAccessKey ?? '', lifetimeMs);
    return { config, source: { kind: 'sas', provider } };
  }
  if (options.credential && options.fullyQualifiedNamespace && options.eventHubName) {
    // As the SDK does: a placeholder key satisfies the config validation; the credential does the auth.
    const host = options.fullyQualifiedNamespace.replace(/^[a-z]+:\/\//i, '').replace(/\/+$/, '');
    const config = ConnectionConfigFactory.create(
      `Endpoint=sb://${host}/;SharedAccessKeyName=defaultKeyName;SharedAccessKey=defaultKeyValue;` +
        `EntityPath=${options.eventHubName}`,
    );
    return { config, source: { kind: 'jwt', credential: options.credential } };
  }
  throw new TypeError('give connectionString, or credential with fullyQualifiedNamespace and eventHubName');
}

export class StreamingHubClient implements HubClient {
  readonly kind: BackendKind = 'streaming';
  readonly fullyQualifiedNamespace: string;
  readonly eventHubName: string;
  readonly consumerGroup: string;
  readonly #options: HubClientOptions;
  readonly #retry: ResolvedRetry;
  readonly #keys: ConfigKeys;
  readonly #connection: AmqpConnection;
  readonly #authorizer: CbsAuthorizer;
  readonly #management: ManagementClient;
  readonly #readers = new Set<StreamingPartitionReader>();
  #closing: Promise<void> | undefined;

  constructor(options: HubClientOptions) {
    this.#options = options;
    guardRheaLogs();
    this.#retry = resolveRetry(options.retry);
    this.#keys = configKeysOf(options);
    this.consumerGroup = options.consumerGroup ?? DEFAULT_CONSUMER_GROUP;
    let target: ParsedTarget;
    try {
      target = parseTarget(options);
    } catch (error) {
      throw invalidConfiguration('streaming', error, options);
    }
    const webSockets = webSocketSettings('streaming', options);
    if (webSockets) {
      // What @azure/event-hubs sets for its own connections (connectionContext.ts); core-amqp then builds
      // `wss://<host>:<port or 443>/$servicebus/websocket` with subprotocol AMQPWSB10.
      target.config.webSocket = webSockets.webSocket;
      target.config.webSocketEndpointPath = '$servicebus/websocket';
      target.config.webSocketConstructorOptions = webSockets.webSocketConstructorOptions;
    }
    this.fullyQualifiedNamespace = target.config.host;
    this.eventHubName = target.config.entityPath!;
    this.#connection = new AmqpConnection(target.config, this.#retry.timeoutMs);
    this.#authorizer = new CbsAuthorizer(target.source, this.#retry.timeoutMs);
    this.#management = new ManagementClient(this.#connection, this.#authorizer, this.eventHubName, this.#retry);
  }

  async getHubProperties(signal?: AbortSignal): Promise<HubProperties> {
    this.#assertOpen();
    try {
      const body = await this.#management.read({ type: 'com.microsoft:eventhub' }, 'getHubRuntimeInformation', signal);
      return {
        name: String(body.name),
        ...(body.created_at !== undefined ? { createdOn: new Date(body.created_at as Date | number) } : {}),
        partitionIds: (body.partition_ids as unknown[]).map(String),
      };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw toBackendError(error, `reading properties of hub '${this.eventHubName}'`, this.#keys);
    }
  }

  async getPartitionProperties(partitionId: string, signal?: AbortSignal): Promise<PartitionProperties> {
    this.#assertOpen();
    try {
      const body = await this.#management.read(
        { type: 'com.microsoft:partition', partition: String(partitionId) },
        'getPartitionInformation',
        signal,
      );
      return {
        hubName: String(body.name),
        partitionId: String(body.partition),
        beginningSequenceNumber: Number(body.begin_sequence_number),
        lastEnqueuedSequenceNumber: Number(body.last_enqueued_sequence_number),
        lastEnqueuedOffset: String(body.last_enqueued_offset),
        lastEnqueuedOnUtc: new Date(body.last_enqueued_time_utc as Date | number),
        isEmpty: Boolean(body.is_partition_empty),
      };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw toBackendError(
        error,
        `reading properties of partition ${partitionId} of hub '${this.eventHubName}'`,
        this.#keys,
      );
    }
  }

  async openPartition(partitionId: string, options: OpenOptions): Promise<PartitionReader> {
    this.#assertOpen();
    const reader: StreamingPartitionReader = new StreamingPartitionReader(String(partitionId), options, {
      connection: this.#connection,
      authorizer: this.#authorizer,
      hub: this.eventHubName,
      consumerGroup: this.consumerGroup,
      retry: this.#retry,
      keys: this.#keys,
      onStatus: this.#options.onStatus,
      onDone: () => this.#readers.delete(reader),
    });
    this.#readers.add(reader);
    await reader.open();
    return reader;
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.all([...this.#readers].map((r) => r.close()));
      this.#management.close();
      await this.#connection.close();
    })();
    return this.#closing;
  }

  #assertOpen(): void {
    if (this.#closing) throw new BackendError('the hub client is closed', { retryable: false, code: 'ClientClosed' });
  }
}
