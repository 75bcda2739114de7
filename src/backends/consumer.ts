/**
 * The shared consumer interface: the only view of an Event Hub that code above `src/backends/` has.
 * Two backends implement it: `polling` (on `@azure/event-hubs`) and `streaming` (AMQP directly).
 * Nothing outside `src/backends/` imports either library.
 */

/** Which backend reads the hub. `polling` is the default; the `receiver.azureeventhub.streaming` gate flips it. */
export type BackendKind = 'polling' | 'streaming';

export interface HubProperties {
  readonly name: string;
  readonly createdOn?: Date;
  readonly partitionIds: readonly string[];
}

export interface PartitionProperties {
  readonly hubName: string;
  readonly partitionId: string;
  /** First sequence number still retained; -1 when the partition has never held an event. */
  readonly beginningSequenceNumber: number;
  /** Sequence number of the newest event; -1 when empty. */
  readonly lastEnqueuedSequenceNumber: number;
  /** Offset of the newest event (decimal string). */
  readonly lastEnqueuedOffset: string;
  readonly lastEnqueuedOnUtc: Date;
  readonly isEmpty: boolean;
}

/**
 * Where a reader starts. Exactly one kind; `inclusive` applies to sequence number and offset.
 * `earliest` and `latest` are the hub's own notions (first retained event, next new event).
 */
export type StartPosition =
  | { readonly kind: 'earliest' }
  | { readonly kind: 'latest' }
  | { readonly kind: 'sequenceNumber'; readonly sequenceNumber: number; readonly inclusive: boolean }
  | { readonly kind: 'offset'; readonly offset: string; readonly inclusive: boolean }
  | { readonly kind: 'enqueuedTime'; readonly enqueuedTime: Date };

/**
 * Events a reader buffers ahead of `receive()` when `prefetchCount` is not given (and what the receiver's
 * `prefetch_count: 0` means). 300, the Azure SDK's own default (three batches of 100).
 */
export const DEFAULT_PREFETCH_COUNT = 300;

export interface OpenOptions {
  readonly startPosition: StartPosition;
  /**
   * Where `startPosition` came from, as the config key a refusal names (`BackendError.configKey`):
   * `start_position`, `partition_start`, `offset` or `checkpoint`. Default: `offset` for an offset,
   * `partition_start` for a sequence number, `start_position` otherwise.
   */
  readonly startPositionKey?: string;
  /** The owner level (epoch). A reader with a higher one disconnects this one. Omitted: no epoch. */
  readonly ownerLevel?: number;
  /** Events the backend may buffer ahead of `receive()`. Default `DEFAULT_PREFETCH_COUNT` (300). */
  readonly prefetchCount?: number;
  /**
   * Events the backend moves at once: the SDK's `maxBatchSize` in `polling`, the least credit worth a
   * flow frame in `streaming`. Default a third of `prefetchCount` (rounded up); capped at it.
   */
  readonly maxBatchSize?: number;
  /** Ask the service for last-enqueued runtime metrics on every delivery (used for lag). Default true. */
  readonly trackLastEnqueuedEventProperties?: boolean;
}

/** One event as the hub delivered it. `body` holds the data section's bytes exactly as sent. */
export interface ReceivedEvent {
  readonly body: Uint8Array;
  readonly sequenceNumber: number;
  /** Decimal string; the service's offset. */
  readonly offset: string;
  readonly enqueuedTime: Date;
  readonly partitionKey?: string;
  /** AMQP application properties. */
  readonly properties?: Readonly<Record<string, unknown>>;
  /** AMQP message properties and annotations not listed above (message id, content type, ...). */
  readonly systemProperties?: Readonly<Record<string, unknown>>;
  readonly contentType?: string;
  readonly messageId?: string | number;
}

/** The newest event the service reported for the partition (runtime metrics), for lag. */
export interface LastEnqueuedInfo {
  readonly sequenceNumber: number;
  readonly offset: string;
  readonly enqueuedOn: Date;
  readonly retrievedOn: Date;
}

/** What a BackendError is built from; see the fields of BackendError. */
export interface BackendErrorOptions {
  readonly retryable: boolean;
  readonly permanent?: boolean;
  readonly configKey?: string;
  readonly hint?: string;
  readonly condition?: string;
  readonly code?: string;
  readonly cause?: unknown;
}

/**
 * Errors thrown by backends. `retryable`: transient, the backend or the caller may try again at once.
 * `permanent`: retrying with the same configuration cannot succeed (the hub, consumer group or partition
 * does not exist, the credential is refused, the hub refuses the start position); `configKey` names the
 * setting to fix and `hint` says what to do. Neither: not retryable, cause unknown (e.g. ownership lost).
 * Messages are redacted. docs/backends.md, "Errors", has the table.
 */
export class BackendError extends Error {
  override readonly name = 'BackendError';
  readonly retryable: boolean;
  /** True when only a configuration change can help. Never true together with `retryable`. */
  readonly permanent: boolean;
  /**
   * The config key to fix, for a permanent error: `event_hub.name`, `connection` (EntityPath, key, SAS),
   * `auth`, `group`, `partition`, `offset`, `partition_start`, `start_position` or `checkpoint`.
   */
  readonly configKey: string | undefined;
  /** One sentence saying what to do, for a permanent error. */
  readonly hint: string | undefined;
  readonly condition: string | undefined;
  /**
   * A stable code: for permanent errors `HubNotFound`, `ConsumerGroupNotFound`, `PartitionNotFound`,
   * `InvalidStartPosition`, `Unauthorized` or `InvalidConfiguration`; otherwise the library's code.
   */
  readonly code: string | undefined;
  constructor(message: string, options: BackendErrorOptions) {
    super(message, { cause: options.cause });
    this.permanent = options.permanent ?? false;
    this.retryable = options.retryable && !this.permanent;
    this.configKey = options.configKey;
    this.hint = options.hint;
    this.condition = options.condition;
    this.code = options.code;
  }
}

/** True for a BackendError that only a configuration change can fix; `configKey` then names the setting. */
export function isPermanentBackendError(error: unknown): error is BackendError & { readonly permanent: true } {
  return error instanceof BackendError && error.permanent;
}

/** A reader with a higher owner level took the partition; the caller must stop reading it. */
export class OwnershipLostError extends BackendError {
  override readonly name = 'BackendError';
  constructor(message: string, cause?: unknown) {
    super(message, { retryable: false, condition: 'amqp:link:stolen', code: 'OwnershipLost', cause });
  }
}

export interface PartitionReader {
  readonly partitionId: string;
  /**
   * Resolves with 1..maxEvents events as soon as any are available, or with [] after maxWaitMs.
   * Transient failures are retried inside the backend (it reconnects and resumes after the last
   * event it returned); a non-retryable failure rejects with a BackendError (OwnershipLostError
   * when the partition was taken). An aborted signal rejects with the signal's reason.
   */
  receive(maxEvents: number, maxWaitMs: number, signal: AbortSignal): Promise<ReceivedEvent[]>;
  /** Latest runtime metrics seen for this partition, when the service sent them. */
  lastEnqueued(): LastEnqueuedInfo | undefined;
  /** Stops reading and releases the link. Idempotent. Events buffered but not returned are dropped. */
  close(): Promise<void>;
  /**
   * Changes how many events the reader may buffer ahead of `receive()` from now on (at least 1). `streaming`
   * grants credit against the new window at once (credit already granted is not taken back: a smaller
   * window takes effect as the buffer drains); `polling` uses it from its next subscription, since the SDK
   * fixes a subscription's prefetch. Optional: a reader without it keeps the window it was opened with.
   */
  setPrefetch?(prefetchCount: number): void;
}

export interface HubClient {
  readonly kind: BackendKind;
  /** Fully qualified namespace, e.g. `myns.servicebus.windows.net` or `127.0.0.1` for the emulator. */
  readonly fullyQualifiedNamespace: string;
  readonly eventHubName: string;
  readonly consumerGroup: string;
  getHubProperties(signal?: AbortSignal): Promise<HubProperties>;
  getPartitionProperties(partitionId: string, signal?: AbortSignal): Promise<PartitionProperties>;
  openPartition(partitionId: string, options: OpenOptions): Promise<PartitionReader>;
  /** Closes every open reader and the connection. Idempotent. */
  close(): Promise<void>;
}

/** Status the backends report (reconnects), for self-telemetry. */
export type BackendStatus =
  | { readonly type: 'disconnected'; readonly partitionId?: string; readonly error: Error }
  | { readonly type: 'recovered'; readonly partitionId?: string };
