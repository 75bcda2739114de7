/**
 * A PartitionReader on `EventHubConsumerClient.subscribe(partitionId, ...)`. The SDK pushes batches
 * into `processEvents`; this reader turns that into a pull: each batch goes into an EventBuffer and the
 * handler's promise resolves only once `receive()` has taken all of it. The SDK awaits the handler
 * before it asks for the next batch and tops its credit up to `prefetchCount` only then, so it never
 * holds more than `prefetchCount` events plus the one batch being handed over.
 */
import type { EventHubConsumerClient, PartitionContext, ReceivedEventData, Subscription } from '@azure/event-hubs';
import { CloseReason } from '@azure/event-hubs';
import type {
  BackendStatus,
  LastEnqueuedInfo,
  OpenOptions,
  PartitionReader,
  ReceivedEvent,
  StartPosition,
} from '../consumer.ts';
import { BackendError, OwnershipLostError } from '../consumer.ts';
import { EventBuffer } from '../internal/event-buffer.ts';
import type { ConfigKeys } from '../internal/classify-error.ts';
import { classifyError, toBackendError } from '../internal/classify-error.ts';
import { startPositionKeyOf } from '../internal/config-keys.ts';
import type { ResolvedRetry } from '../internal/defaults.ts';
import { resolveWindow } from '../internal/defaults.ts';
import { backoffDelayMs } from '../../component/backoff.ts';
import { toEventPosition } from './to-event-position.ts';
import { toReceivedEvent } from './to-received-event.ts';
import { closeSubscriptionSettled, decodeSdkDeliveries } from './internal/event-hubs-internals.ts';

/** How long the SDK waits for events before it calls `processEvents([])`. Default 60 s (the SDK's). */
export const DEFAULT_SDK_MAX_WAIT_S = 60;
/**
 * Empty rounds in a row after which an idle subscription is replaced. The SDK adds `prefetchCount`
 * credit at every `receiveBatch` without taking back what an idle link still holds, so credit grows by
 * a prefetch per round; a fresh link starts from zero. With the defaults an idle link holds at most
 * (3 + 1) × prefetch credit, and is replaced every 3 minutes of silence.
 */
export const DEFAULT_IDLE_RECYCLE_ROUNDS = 3;

export interface PollingReaderSettings {
  readonly retry: ResolvedRetry;
  /** Config keys of the hub client, named by permanent errors. */
  readonly keys: ConfigKeys;
  readonly onStatus: ((status: BackendStatus) => void) | undefined;
  /** Called once the reader closed or failed, so the hub client forgets it. */
  readonly onDone: () => void;
  /** Tuning for tests: the SDK's wait per round (s) and the idle rounds before a new link. */
  readonly sdkMaxWaitS?: number;
  readonly idleRecycleRounds?: number;
}

export class PollingPartitionReader implements PartitionReader {
  readonly partitionId: string;
  readonly #client: EventHubConsumerClient;
  readonly #options: OpenOptions;
  readonly #settings: PollingReaderSettings;
  #window: { prefetch: number; batch: number };
  readonly #keys: ConfigKeys;
  readonly #buffer = new EventBuffer();
  #subscription: Subscription | undefined;
  /** Subscriptions are replaced after a pump died; handlers of an old one are ignored. */
  #generation = 0;
  /** Sequence number of the last event put in the buffer: where a new subscription resumes (exclusive). */
  #lastSequenceNumber: number | undefined;
  #lastEnqueued: LastEnqueuedInfo | undefined;
  #disconnected = false;
  #restartAttempt = 0;
  #idleRounds = 0;
  /** The prefetch the current subscription was made with. */
  #subscribedPrefetch = 0;
  /** The current subscription's SDK receive has completed at least once (its link is up). */
  #delivered = false;
  #replacing = false;
  #restartTimer: NodeJS.Timeout | undefined;
  #closing: Promise<void> | undefined;

  constructor(
    client: EventHubConsumerClient,
    partitionId: string,
    options: OpenOptions,
    settings: PollingReaderSettings,
  ) {
    this.#client = client;
    this.partitionId = partitionId;
    this.#options = options;
    this.#settings = settings;
    this.#window = resolveWindow(options.prefetchCount, options.maxBatchSize);
    this.#keys = { ...settings.keys, startPosition: startPositionKeyOf(options) };
  }

  /** Subscribes; the SDK attaches the link in the background and reports failures through the handlers. */
  start(): void {
    this.#subscribe(this.#options.startPosition);
  }

  receive(maxEvents: number, maxWaitMs: number, signal: AbortSignal): Promise<ReceivedEvent[]> {
    return this.#buffer.receive(maxEvents, maxWaitMs, signal);
  }

  lastEnqueued(): LastEnqueuedInfo | undefined {
    return this.#lastEnqueued;
  }

  /**
   * The SDK fixes a subscription's prefetch, so a larger window waits for the next subscription (an idle
   * link replaced, a connection lost). A window shrunk to two thirds or less of the subscription's replaces
   * the subscription now, after the last event buffered: what the SDK prefetched beyond it is read again.
   * From 300, that is at most three replacements while a receiver's partitions grow to any number.
   */
  setPrefetch(prefetchCount: number): void {
    this.#window = resolveWindow(prefetchCount, this.#options.maxBatchSize);
    this.#shrinkIfDue();
  }

  /**
   * Replaces the subscription when its prefetch is too large for the window (see setPrefetch), once it
   * has delivered (checked again at each delivery): a subscription still attaching is not thrown away for
   * another attach, and its SDK need not cancel a token request half-way (see repairUnattachedLinkAddress).
   */
  #shrinkIfDue(): void {
    if (this.#window.prefetch * 3 > this.#subscribedPrefetch * 2) return;
    if (this.#subscription && !this.#closing && !this.#stopped && this.#resumable && this.#delivered)
      this.#resubscribe(0);
  }

  /** The buffer was closed or failed: nothing more is read. */
  get #stopped(): boolean {
    return this.#buffer.isClosed || this.#buffer.failure !== undefined;
  }

  /**
   * A new subscription can resume without a gap: after the last event buffered, or at the start position
   * when that is not `latest` (a `latest` start with nothing seen yet would skip what arrived in between).
   */
  get #resumable(): boolean {
    return this.#lastSequenceNumber !== undefined || this.#options.startPosition.kind !== 'latest';
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#buffer.close();
      await this.#stop();
      this.#settings.onDone();
    })();
    return this.#closing;
  }

  /**
   * The SDK replaced its AMQP connection (polling-hub-client.ts watches for it): a receive round that
   * was waiting on the old link would not return before the SDK's max wait, so subscribe again now,
   * after the last event handed over. Reported as disconnected, then recovered once events flow.
   */
  connectionReplaced(): void {
    if (this.#stopped || this.#closing) return;
    if (!this.#disconnected) {
      this.#disconnected = true;
      this.#settings.onStatus?.({
        type: 'disconnected',
        partitionId: this.partitionId,
        error: new BackendError(`partition ${this.partitionId}: the connection was lost; subscribing again`, {
          retryable: true,
          code: 'ConnectionLost',
        }),
      });
    }
    this.#resubscribe(0);
  }

  #subscribe(position: StartPosition): void {
    const generation = ++this.#generation;
    this.#subscribedPrefetch = this.#window.prefetch;
    this.#delivered = false;
    const current = (): boolean => generation === this.#generation && !this.#stopped;
    // Our one-pass AMQP decoder for the SDK's deliveries, on whatever connection the SDK holds now.
    decodeSdkDeliveries(this.#client);
    this.#subscription = this.#client.subscribe(
      this.partitionId,
      {
        processEvents: (events, context) => (current() ? this.#onEvents(events, context) : Promise.resolve()),
        processError: async (error) => {
          if (current()) this.#onError(error);
        },
        processClose: async (reason) => {
          if (current()) this.#onClose(reason);
        },
      },
      {
        startPosition: toEventPosition(position),
        ...(this.#options.ownerLevel !== undefined ? { ownerLevel: this.#options.ownerLevel } : {}),
        prefetchCount: this.#window.prefetch,
        maxBatchSize: this.#window.batch,
        maxWaitTimeInSeconds: this.#settings.sdkMaxWaitS ?? DEFAULT_SDK_MAX_WAIT_S,
        skipParsingBodyAsJson: true,
        trackLastEnqueuedEventProperties: this.#options.trackLastEnqueuedEventProperties ?? true,
      },
    );
  }

  #onEvents(events: ReceivedEventData[], context: PartitionContext): Promise<void> {
    const info = context.lastEnqueuedEventProperties;
    if (info?.sequenceNumber !== undefined && info.enqueuedOn && info.retrievedOn) {
      this.#lastEnqueued = {
        sequenceNumber: info.sequenceNumber,
        offset: String(info.offset ?? ''),
        enqueuedOn: info.enqueuedOn,
        retrievedOn: info.retrievedOn,
      };
    }
    // A call at all (even with no events) means the SDK's receive succeeded: the link is up.
    this.#delivered = true;
    if (this.#disconnected) {
      this.#disconnected = false;
      this.#restartAttempt = 0;
      this.#settings.onStatus?.({ type: 'recovered', partitionId: this.partitionId });
    }
    if (events.length === 0) {
      // A reader that cannot resume without a gap keeps its link (see #resumable).
      if (this.#resumable && ++this.#idleRounds >= (this.#settings.idleRecycleRounds ?? DEFAULT_IDLE_RECYCLE_ROUNDS)) {
        this.#idleRounds = 0;
        this.#resubscribe(0);
      }
      this.#shrinkIfDue();
      return Promise.resolve();
    }
    this.#idleRounds = 0;
    const converted = events.map(toReceivedEvent);
    // The SDK keeps this array (and each event's raw AMQP message) until the promise below settles, which
    // is when receive() has taken the whole batch; it reads nothing of it afterwards (@azure/event-hubs
    // 6.0.4, partitionPump.ts). Emptied, a waiting partition holds its events once: 10 MiB less peak RSS
    // at 32 partitions in the pipeline bench (248 vs 257-259 MiB).
    events.length = 0;
    this.#lastSequenceNumber = converted[converted.length - 1]!.sequenceNumber;
    this.#buffer.pushAll(converted);
    // After the push: the replacement resumes after these events (a `latest` start now has a position).
    this.#shrinkIfDue();
    // The backpressure: the SDK awaits this before it receives (and grants credit) again.
    return this.#buffer.whenEmpty();
  }

  /**
   * The SDK reports a refused attach (unknown hub or consumer group, refused credential, a start position
   * the hub rejects) here, at the first receive after `subscribe()`: a permanent one fails the reader, so
   * the next `receive()` rejects with it instead of the SDK's loop retrying the same attach for ever.
   */
  #onError(error: Error): void {
    const classified = classifyError(error, this.#keys);
    const context = `partition ${this.partitionId}`;
    if (classified.kind === 'ownershipLost') {
      this.#fail(
        new OwnershipLostError(
          `${context}: ownership lost to a reader with a higher owner level: ${classified.message}`,
          error,
        ),
      );
    } else if (classified.kind === 'transient') {
      // The SDK retried the operation already; it goes on with a new link (or stops the pump, see #onClose).
      if (!this.#disconnected) {
        this.#disconnected = true;
        this.#settings.onStatus?.({
          type: 'disconnected',
          partitionId: this.partitionId,
          error: toBackendError(error, context, this.#keys),
        });
      }
    } else {
      this.#fail(toBackendError(error, context, this.#keys));
    }
  }

  #onClose(reason: CloseReason): void {
    if (reason === CloseReason.OwnershipLost) {
      this.#fail(
        new OwnershipLostError(`partition ${this.partitionId}: ownership lost to a reader with a higher owner level`),
      );
      return;
    }
    // The pump stopped although nobody asked (its retries ran out). The SDK would start a new one in
    // 10 s from the original start position, re-reading what we already returned; start our own
    // subscription instead, after the last event handed over.
    if (!this.#disconnected) {
      this.#disconnected = true;
      this.#settings.onStatus?.({
        type: 'disconnected',
        partitionId: this.partitionId,
        error: new BackendError(`partition ${this.partitionId}: the SDK stopped reading`, { retryable: true }),
      });
    }
    const { retryDelayMs, maxRetryDelayMs } = this.#settings.retry;
    this.#resubscribe(backoffDelayMs(++this.#restartAttempt, retryDelayMs, maxRetryDelayMs));
  }

  /** Replaces the subscription after `delayMs`, resuming after the last event handed over. */
  #resubscribe(delayMs: number): void {
    if (this.#replacing) return; // one replacement at a time
    this.#replacing = true;
    const old = this.#subscription;
    this.#generation++;
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      void (async () => {
        await old?.close().catch(() => undefined);
        this.#replacing = false;
        if (this.#stopped) return;
        const resume: StartPosition =
          this.#lastSequenceNumber !== undefined
            ? { kind: 'sequenceNumber', sequenceNumber: this.#lastSequenceNumber, inclusive: false }
            : this.#options.startPosition;
        this.#subscribe(resume);
      })();
    }, delayMs);
    this.#restartTimer.unref();
  }

  #fail(error: BackendError): void {
    this.#buffer.fail(error);
    // Stop the SDK before its loop restarts the partition from the original start position.
    void this.#stop().then(this.#settings.onDone);
  }

  async #stop(): Promise<void> {
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    this.#restartTimer = undefined;
    this.#generation++;
    const subscription = this.#subscription;
    this.#subscription = undefined;
    await closeSubscriptionSettled(subscription, this.#client);
  }
}
