/**
 * The streaming backend's PartitionReader: one AMQP receiver link with manual credit. Deliveries land
 * in an EventBuffer; credit is topped up only to `prefetch - buffered - outstanding`, so a reader
 * nobody pulls stops the service after `prefetch` events. A transient failure (link detached with
 * server-busy or detach-forced, connection dropped) makes it reconnect with backoff and re-attach
 * after the last event it received, so nothing is lost or repeated; `amqp:link:stolen` and refused
 * credentials fail it for good.
 */
import type { Message, Receiver, ReceiverOptions } from 'rhea-promise';
import { generate_uuid, types } from 'rhea-promise';
import { Constants, RetryOperationType, retry } from '@azure/core-amqp';
import type {
  BackendStatus,
  LastEnqueuedInfo,
  OpenOptions,
  PartitionReader,
  ReceivedEvent,
  StartPosition,
} from '../consumer.ts';
import { EventBuffer } from '../internal/event-buffer.ts';
import type { ConfigKeys } from '../internal/classify-error.ts';
import { classifyError, toBackendError } from '../internal/classify-error.ts';
import { startPositionKeyOf } from '../internal/config-keys.ts';
import type { ResolvedRetry } from '../internal/defaults.ts';
import { resolveWindow } from '../internal/defaults.ts';
import { backoffDelayMs } from '../../component/backoff.ts';
import type { AmqpConnection } from './amqp-connection.ts';
import type { CbsAuthorizer, ClaimRenewal } from './cbs-authorizer.ts';
import { creditToGrant } from './credit-window.ts';
import { SELECTOR_FILTER_DESCRIPTOR, SELECTOR_FILTER_NAME, toSelectorFilter } from './event-position-filter.ts';
import { toCoreAmqpRetry, translateForRetry } from './management-client.ts';
import { lastEnqueuedFromMessage, messageToEvent } from './message-to-event.ts';
import { decodeMessage } from './message-decoder.ts';
import {
  UNDECODED_FORMAT,
  createReceiverOrRefusal,
  deliverUndecoded,
  settledByDisconnect,
} from './internal/rhea-promise-internals.ts';

/** Link properties and capabilities the SDK sends (docs/EVENT-HUBS-PROTOCOL.md, "Receiving"). */
const RECEIVER_NAME_PROPERTY = 'com.microsoft:receiver-name';
const GEO_REPLICATION_CAPABILITY = 'com.microsoft:georeplication';
/** The selector filter of a position; a position it cannot express fails as InvalidStartPosition (permanent). */
function selectorFilterOf(position: StartPosition): string {
  try {
    return toSelectorFilter(position);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    throw Object.assign(new RangeError(text), { code: 'InvalidStartPosition', retryable: false });
  }
}

/** How long a graceful detach may take before the link is dropped locally. */
const LINK_CLOSE_TIMEOUT_MS = 5_000;

export interface StreamingReaderSettings {
  readonly connection: AmqpConnection;
  readonly authorizer: CbsAuthorizer;
  readonly hub: string;
  readonly consumerGroup: string;
  readonly retry: ResolvedRetry;
  /** Config keys of the hub client, named by permanent errors. */
  readonly keys: ConfigKeys;
  readonly onStatus: ((status: BackendStatus) => void) | undefined;
  readonly onDone: () => void;
}

export class StreamingPartitionReader implements PartitionReader {
  readonly partitionId: string;
  readonly #s: StreamingReaderSettings;
  readonly #options: OpenOptions;
  #window: { prefetch: number; batch: number };
  readonly #keys: ConfigKeys;
  readonly #buffer = new EventBuffer();
  readonly #name = generate_uuid();
  #link: Receiver | undefined;
  #renewal: ClaimRenewal | undefined;
  #unlisten: (() => void) | undefined;
  /** Sequence number of the last event received: a re-attach starts after it. */
  #lastSequenceNumber: number | undefined;
  #lastEnqueued: LastEnqueuedInfo | undefined;
  /**
   * The newest delivery's annotations, when they may carry newer runtime metrics than `#lastEnqueued`: read
   * only when asked (once per batch), not made into an object with two Dates for every delivery.
   */
  #lastEnqueuedFrom: Message['delivery_annotations'];
  #reconnecting = false;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #closing: Promise<void> | undefined;

  constructor(partitionId: string, options: OpenOptions, settings: StreamingReaderSettings) {
    this.partitionId = partitionId;
    this.#options = options;
    this.#s = settings;
    this.#window = resolveWindow(options.prefetchCount, options.maxBatchSize);
    this.#keys = { ...settings.keys, startPosition: startPositionKeyOf(options) };
    this.#buffer.onTaken = () => this.#grantCredit();
    this.#unlisten = settings.connection.onDisconnected((connection, error) => {
      if (this.#link && this.#link.connection === connection) this.#onTransient(error);
    });
  }

  get #address(): string {
    return `${this.#s.hub}/ConsumerGroups/${this.#s.consumerGroup}/Partitions/${this.partitionId}`;
  }

  get #audience(): string {
    return `${this.#s.connection.endpoint}${this.#address}`;
  }

  /** Attaches the link, retrying transient failures; rejects with a BackendError when it cannot. */
  async open(signal?: AbortSignal): Promise<void> {
    try {
      await retry({
        operation: () => this.#attach(signal).catch((e: unknown) => Promise.reject(translateForRetry(e))),
        connectionId: this.#s.connection.connectionId,
        operationType: RetryOperationType.receiverLink,
        retryOptions: toCoreAmqpRetry(this.#s.retry),
        ...(signal ? { abortSignal: signal } : {}),
      });
    } catch (error) {
      const failure = toBackendError(error, `opening partition ${this.partitionId}`, this.#keys);
      this.#buffer.fail(failure);
      await this.close();
      throw failure;
    }
  }

  receive(maxEvents: number, maxWaitMs: number, signal: AbortSignal): Promise<ReceivedEvent[]> {
    return this.#buffer.receive(maxEvents, maxWaitMs, signal);
  }

  lastEnqueued(): LastEnqueuedInfo | undefined {
    const annotations = this.#lastEnqueuedFrom;
    if (annotations !== undefined) {
      this.#lastEnqueuedFrom = undefined;
      const info = lastEnqueuedFromMessage({ delivery_annotations: annotations });
      if (info) this.#lastEnqueued = info;
    }
    return this.#lastEnqueued;
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#buffer.close();
      await this.#teardown(true);
      this.#s.onDone();
    })();
    return this.#closing;
  }

  async #attach(signal?: AbortSignal): Promise<void> {
    if (this.#isDone()) return;
    const timing = await this.#s.authorizer.authorize(this.#s.connection, this.#audience, signal);
    const connection = await this.#s.connection.open();
    const position: StartPosition =
      this.#lastSequenceNumber !== undefined
        ? { kind: 'sequenceNumber', sequenceNumber: this.#lastSequenceNumber, inclusive: false }
        : this.#options.startPosition;
    const properties: Record<string, unknown> = { [RECEIVER_NAME_PROPERTY]: this.#name };
    if (this.#options.ownerLevel !== undefined)
      properties[Constants.attachEpoch] = types.wrap_long(this.#options.ownerLevel);
    const capabilities = [GEO_REPLICATION_CAPABILITY];
    if (this.#options.trackLastEnqueuedEventProperties ?? true)
      capabilities.push(Constants.enableReceiverRuntimeMetricName);
    const filter = selectorFilterOf(position);
    // Handlers are bound to this attach: events of a link already replaced or dropped are ignored.
    const ref: { link?: Receiver } = {};
    const current = (): boolean => ref.link !== undefined && ref.link === this.#link;
    const ended = (error: unknown): void => {
      if (current()) this.#onLinkError(error);
    };
    const options: ReceiverOptions = {
      name: `${this.#address}-${generate_uuid()}`,
      source: {
        address: this.#address,
        filter: { [SELECTOR_FILTER_NAME]: types.wrap_described(filter, SELECTOR_FILTER_DESCRIPTOR) },
      },
      credit_window: 0,
      autoaccept: true,
      properties,
      desired_capabilities: capabilities,
      onMessage: (context) => {
        const delivered: unknown = context.message;
        if (!delivered || !current()) return;
        // Marked by deliverUndecoded: the message's bytes, decoded here in one pass instead of by rhea.
        this.#onMessage(
          Buffer.isBuffer(delivered) && (context as { format?: number }).format === UNDECODED_FORMAT
            ? decodeMessage(delivered)
            : context.message!,
        );
      },
      onError: (context) => ended(context.receiver?.error ?? ref.link?.error),
      onSessionError: (context) => ended(context.session?.error),
      onClose: (context) => ended(context.receiver?.error ?? ref.link?.error),
      onSessionClose: (context) => ended(context.session?.error),
    };
    const { link, refusal } = await createReceiverOrRefusal(connection, {
      ...options,
      ...(signal ? { abortSignal: signal } : {}),
    });
    if (refusal !== undefined) {
      // Unknown hub or consumer group, a start position the hub rejects, a missing claim: the error of the
      // detach that answered the attach. Transient ones (server busy) are retried by the caller.
      void this.#release(link);
      throw translateForRetry(refusal);
    }
    ref.link = link;
    if (this.#isDone()) {
      link.remove();
      return;
    }
    this.#link = link;
    // Before any credit is granted, so no transfer arrives yet. Pre-settled messages come straight here.
    deliverUndecoded(link, (bytes) => {
      if (current()) this.#onMessage(decodeMessage(bytes));
    });
    this.#renewal?.stop();
    this.#renewal = this.#s.authorizer.keepRenewed(this.#s.connection, this.#audience, timing);
    this.#grantCredit();
  }

  #onMessage(message: Message): void {
    const event = messageToEvent(message);
    this.#lastSequenceNumber = event.sequenceNumber;
    // Only deliveries with runtime metrics replace what lastEnqueued() will read.
    if (message.delivery_annotations !== undefined) this.#lastEnqueuedFrom = message.delivery_annotations;
    this.#buffer.push(event);
  }

  setPrefetch(prefetchCount: number): void {
    this.#window = resolveWindow(prefetchCount, this.#options.maxBatchSize);
    this.#grantCredit();
  }

  #grantCredit(): void {
    const link = this.#link;
    if (!link || this.#reconnecting || !link.isOpen()) return;
    const credit = creditToGrant(this.#window.prefetch, this.#buffer.length, link.credit, this.#window.batch);
    if (credit > 0) link.addCredit(credit);
  }

  /** A detach or session end on the current link (with or without an error). */
  #onLinkError(raw: unknown): void {
    if (this.#isDone()) return;
    const error =
      raw ??
      Object.assign(new Error('the service closed the receiver link'), { code: 'DetachForcedError', retryable: true });
    const kind = classifyError(translateForRetry(error)).kind;
    if (kind === 'transient') this.#onTransient(translateForRetry(error));
    else this.#failWith(translateForRetry(error));
  }

  #onTransient(error: Error): void {
    if (this.#isDone() || this.#reconnecting) return;
    this.#reconnecting = true;
    this.#s.onStatus?.({
      type: 'disconnected',
      partitionId: this.partitionId,
      error: toBackendError(error, `partition ${this.partitionId}`, this.#keys),
    });
    // The old link's close runs on in the background (it may wait for a peer that is gone); the new
    // attach does not depend on it.
    void this.#teardown(false);
    this.#reconnect(1);
  }

  /** Re-attaches after the last received event; transient failures retry with capped backoff, for ever. */
  #reconnect(attempt: number): void {
    if (this.#isDone()) return;
    this.#reconnectTimer = setTimeout(
      () => {
        this.#reconnectTimer = undefined;
        this.#attach().then(
          () => {
            if (this.#isDone()) return;
            this.#reconnecting = false;
            this.#s.onStatus?.({ type: 'recovered', partitionId: this.partitionId });
            this.#grantCredit();
          },
          (error: unknown) => {
            const translated = translateForRetry(error);
            if (classifyError(translated).kind === 'transient') this.#reconnect(attempt + 1);
            else this.#failWith(translated);
          },
        );
      },
      backoffDelayMs(attempt, this.#s.retry.retryDelayMs, this.#s.retry.maxRetryDelayMs),
    );
    this.#reconnectTimer.unref();
  }

  #failWith(error: unknown): void {
    this.#buffer.fail(toBackendError(error, `partition ${this.partitionId}`, this.#keys));
    void this.#teardown(true).then(this.#s.onDone);
  }

  #isDone(): boolean {
    return this.#buffer.isClosed || this.#buffer.failure !== undefined;
  }

  /** Drops the link and its claim renewal; `final` also stops listening for connection drops. */
  async #teardown(final: boolean): Promise<void> {
    if (final) {
      this.#unlisten?.();
      this.#unlisten = undefined;
      if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
      this.#reconnectTimer = undefined;
    }
    this.#renewal?.stop();
    this.#renewal = undefined;
    const link = this.#link;
    this.#link = undefined;
    if (link) await this.#release(link);
  }

  /** Detaches a link (or forgets it when the connection is gone), within LINK_CLOSE_TIMEOUT_MS. */
  async #release(link: Receiver): Promise<void> {
    if (!link.connection.isOpen()) {
      // Nothing can be sent any more; forget the link and its session locally.
      link.remove();
      return;
    }
    // close() detaches an open link, and for a link the service detached (rhea answers that detach on
    // its own, next tick) it ends the link's session. Removing the link locally instead would race
    // rhea's own detach and send frames for a session the peer no longer knows.
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), LINK_CLOSE_TIMEOUT_MS);
      timer.unref();
    });
    let closeFailed = false;
    const closing = link.close().catch(() => void (closeFailed = true));
    // true when the connection's loss overtook the close (rhea-promise would never settle it then).
    const disconnected = settledByDisconnect(link.connection, closing);
    const abandoned = await Promise.race([disconnected, timedOut]);
    clearTimeout(timer);
    // A close that failed, was overtaken or timed out: forget the link locally.
    if (abandoned || closeFailed) link.remove();
  }
}
