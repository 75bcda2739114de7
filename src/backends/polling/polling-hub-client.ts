/**
 * The `polling` backend (the default): a HubClient on `@azure/event-hubs`' EventHubConsumerClient.
 * One client (one AMQP connection) per HubClient; one single-partition subscription per open reader.
 * Our ownership coordinator decides which partitions to read, so the SDK's load balancer and
 * checkpoint store are not used (a single-partition subscribe bypasses them).
 */
import { EventHubConsumerClient, RetryMode, parseEventHubConnectionString } from '@azure/event-hubs';
import type { RetryOptions } from '@azure/event-hubs';
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
import { DEFAULT_SAS_TOKEN_LIFETIME_MS, resolveSasTokenLifetimeMs } from '../internal/token-lifetime.ts';
import {
  repairUnattachedLinkAddress,
  replaceSdkCredential,
  sdkConnectionId,
  settledByDisconnect,
} from './internal/event-hubs-internals.ts';
import { sasKeyCredential, withTimelyRenewal } from './internal/sdk-token-timing.ts';
import { PollingPartitionReader } from './polling-partition-reader.ts';
import { guardRheaLogs } from '../internal/rhea-log-guard.ts';

/** How often the client looks whether the SDK replaced its AMQP connection. 1000 ms. */
export const CONNECTION_WATCH_INTERVAL_MS = 1_000;

function toSdkRetry(retry: ResolvedRetry): RetryOptions {
  return {
    maxRetries: retry.maxRetries,
    retryDelayInMs: retry.retryDelayMs,
    maxRetryDelayInMs: retry.maxRetryDelayMs,
    timeoutInMs: retry.timeoutMs,
    mode: RetryMode.Exponential,
  };
}

export class PollingHubClient implements HubClient {
  readonly kind: BackendKind = 'polling';
  readonly fullyQualifiedNamespace: string;
  readonly eventHubName: string;
  readonly consumerGroup: string;
  readonly #client: EventHubConsumerClient;
  readonly #options: HubClientOptions;
  readonly #retry: ResolvedRetry;
  readonly #keys: ConfigKeys;
  readonly #readers = new Set<PollingPartitionReader>();
  #closing: Promise<void> | undefined;
  #connectionId: string | undefined;
  #connectionWatch: NodeJS.Timeout | undefined;

  readonly #tuning: { readonly sdkMaxWaitS?: number; readonly idleRecycleRounds?: number };

  /** `tuning` is for tests (short SDK rounds); production uses the defaults of PollingPartitionReader. */
  constructor(
    options: HubClientOptions,
    tuning: { readonly sdkMaxWaitS?: number; readonly idleRecycleRounds?: number } = {},
  ) {
    this.#options = options;
    this.#tuning = tuning;
    repairUnattachedLinkAddress();
    guardRheaLogs();
    this.#retry = resolveRetry(options.retry);
    this.#keys = configKeysOf(options);
    this.consumerGroup = options.consumerGroup ?? DEFAULT_CONSUMER_GROUP;
    const webSockets = webSocketSettings('polling', options);
    const webSocketOptions = webSockets
      ? { webSocket: webSockets.webSocket, webSocketConstructorOptions: webSockets.webSocketConstructorOptions }
      : undefined;
    const clientOptions = { retryOptions: toSdkRetry(this.#retry), ...(webSocketOptions ? { webSocketOptions } : {}) };
    try {
      if (options.connectionString) {
        this.#client = options.eventHubName
          ? new EventHubConsumerClient(
              this.consumerGroup,
              options.connectionString,
              options.eventHubName,
              clientOptions,
            )
          : new EventHubConsumerClient(this.consumerGroup, options.connectionString, clientOptions);
      } else if (options.credential && options.fullyQualifiedNamespace && options.eventHubName) {
        const credential = withTimelyRenewal(options.credential);
        this.#client = new EventHubConsumerClient(
          this.consumerGroup,
          options.fullyQualifiedNamespace,
          options.eventHubName,
          credential,
          clientOptions,
        );
      } else {
        throw new TypeError('give connectionString, or credential with fullyQualifiedNamespace and eventHubName');
      }
      this.#useSasTokenLifetime(options);
    } catch (error) {
      // The SDK quotes the whole connection string when it cannot use it.
      throw invalidConfiguration('polling', error, options);
    }
    this.fullyQualifiedNamespace = this.#client.fullyQualifiedNamespace;
    this.eventHubName = this.#client.eventHubName;
    this.#connectionId = sdkConnectionId(this.#client);
  }

  /** With `sasTokenLifetimeMs`, the SDK's claims are put with tokens of that lifetime (sdk-token-timing.ts). */
  #useSasTokenLifetime(options: HubClientOptions): void {
    const lifetimeMs = resolveSasTokenLifetimeMs(options.sasTokenLifetimeMs);
    if (lifetimeMs === DEFAULT_SAS_TOKEN_LIFETIME_MS || !options.connectionString) return;
    const parts = parseEventHubConnectionString(options.connectionString);
    if (!parts.sharedAccessKeyName || !parts.sharedAccessKey) return;
    const resource = `sb://${this.#client.fullyQualifiedNamespace}/${this.#client.eventHubName}`;
    if (
      !replaceSdkCredential(
        this.#client,
        sasKeyCredential(parts.sharedAccessKeyName, parts.sharedAccessKey, resource, lifetimeMs),
      )
    ) {
      throw new TypeError(
        `sasTokenLifetimeMs needs @azure/event-hubs' private _context.tokenCredential, which this version lacks`,
      );
    }
  }

  /**
   * When the connection drops, the SDK closes its receivers and opens a new connection, but a receive
   * round that was waiting for events is not told: it sits on the dead link until its max wait (60 s)
   * runs out (@azure/event-hubs 6.0.4: the receiver's close clears the error handler first). So while
   * readers are open, the client looks every second whether the SDK's connection id changed, and tells
   * the readers, which resubscribe after their last event.
   */
  #watchConnection(): void {
    if (this.#connectionWatch || this.#connectionId === undefined) return;
    this.#connectionWatch = setInterval(() => {
      const id = sdkConnectionId(this.#client);
      if (id === undefined || id === this.#connectionId) return;
      this.#connectionId = id;
      for (const reader of this.#readers) reader.connectionReplaced();
    }, CONNECTION_WATCH_INTERVAL_MS);
    this.#connectionWatch.unref();
  }

  #unwatchConnectionIfIdle(): void {
    if (this.#readers.size > 0 || !this.#connectionWatch) return;
    clearInterval(this.#connectionWatch);
    this.#connectionWatch = undefined;
  }

  async getHubProperties(signal?: AbortSignal): Promise<HubProperties> {
    this.#assertOpen();
    try {
      const p = await this.#client.getEventHubProperties(signal ? { abortSignal: signal } : {});
      return { name: p.name, createdOn: p.createdOn, partitionIds: [...p.partitionIds] };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw toBackendError(error, `reading properties of hub '${this.eventHubName}'`, this.#keys);
    }
  }

  async getPartitionProperties(partitionId: string, signal?: AbortSignal): Promise<PartitionProperties> {
    this.#assertOpen();
    try {
      const p = await this.#client.getPartitionProperties(partitionId, signal ? { abortSignal: signal } : {});
      return {
        hubName: p.eventHubName,
        partitionId: p.partitionId,
        beginningSequenceNumber: p.beginningSequenceNumber,
        lastEnqueuedSequenceNumber: p.lastEnqueuedSequenceNumber,
        lastEnqueuedOffset: String(p.lastEnqueuedOffset),
        lastEnqueuedOnUtc: p.lastEnqueuedOnUtc,
        isEmpty: p.isEmpty,
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
    const reader: PollingPartitionReader = new PollingPartitionReader(this.#client, partitionId, options, {
      retry: this.#retry,
      keys: this.#keys,
      onStatus: this.#options.onStatus,
      onDone: () => {
        this.#readers.delete(reader);
        this.#unwatchConnectionIfIdle();
      },
      ...this.#tuning,
    });
    try {
      reader.start();
    } catch (error) {
      // e.g. the partition is already being read through this client.
      throw toBackendError(error, `opening partition ${partitionId}`, this.#keys);
    }
    this.#readers.add(reader);
    this.#watchConnection();
    return reader;
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.all([...this.#readers].map((r) => r.close()));
      clearInterval(this.#connectionWatch);
      this.#connectionWatch = undefined;
      await settledByDisconnect(this.#client, this.#client.close());
    })();
    return this.#closing;
  }

  #assertOpen(): void {
    if (this.#closing) throw new BackendError('the hub client is closed', { retryable: false, code: 'ClientClosed' });
  }
}
