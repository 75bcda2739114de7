import type { ReceivedEvent } from '../backends/consumer.ts';
import type { Signal } from './signals.ts';

/** The partition an event came from. Extra fields the caller passes are ignored (never written). */
export interface DeadLetterSource {
  readonly namespace: string;
  readonly eventHubName: string;
  readonly consumerGroup: string;
  readonly partitionId: string;
}

/** One event the pipeline could not deliver, and why. */
export interface DeadLetterEntry {
  readonly event: ReceivedEvent;
  readonly source: DeadLetterSource;
  /** `type`: a short class of failure, e.g. `permanent`, `retries_exhausted`, `request_too_large`, `decode`. */
  readonly error: { readonly type: string; readonly message: string };
  readonly at: Date;
  /**
   * The signals whose items from this event were refused (`metrics` when a metrics pipeline refused the
   * event's metric points), when known. The event is written whole: replaying its body decodes every item
   * again, of every signal. Optional; absent in entries written before metrics and traces existed.
   */
  readonly signals?: readonly Signal[];
}

/**
 * Where events go that the exporter refused for good. `write` resolves only once every entry is durable
 * (fsync'ed or acknowledged by the storage service): the receiver checkpoints past them after that.
 */
export interface DeadLetterStore {
  write(entries: readonly DeadLetterEntry[]): Promise<void>;
  /**
   * Where `entry` is written, for log lines: a file path or a blob URL, never with a key or SAS token.
   * Optional: a store without it is named by its class in logs.
   */
  locationOf?(entry: DeadLetterEntry): string;
  /** Releases resources. Optional; idempotent. */
  close?(): Promise<void>;
}
