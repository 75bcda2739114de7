import { PermanentError, isPermanentError } from '../component/errors.ts';
import type { LogsConsumer } from './consumer.ts';
import type { LogBatch } from './log-batch.ts';
import { abortReason } from '../component/abort.ts';
import { describeError } from './internal/classify-export-error.ts';

/** A retryable failure of a fan-out: at least one consumer failed retryably. `errors` holds every failure. */
export class FanOutError extends Error {
  override readonly name = 'FanOutError';
  readonly errors: readonly unknown[];
  constructor(message: string, errors: readonly unknown[]) {
    super(message, { cause: errors[0] });
    this.errors = errors;
  }
}

/**
 * Sends every batch to all consumers at once (one pipeline feeding several exporters) and resolves
 * when all accepted it. When some fail: if any failure is retryable, it rejects retryably (a
 * `FanOutError`), otherwise with a `PermanentError` listing them.
 *
 * Duplicates: a retry re-sends the batch to every consumer, including those that had accepted it, so a
 * retryable failure of one destination duplicates the batch in the others (at-least-once per
 * destination). Wrap each consumer in its own `withRetry` to keep retries local to the failing one.
 */
export function fanOut(consumers: readonly LogsConsumer[]): LogsConsumer {
  if (consumers.length === 1) return consumers[0]!;
  const list = [...consumers];
  return {
    async consume(batch: LogBatch, signal?: AbortSignal): Promise<void> {
      const results = await Promise.allSettled(list.map((c) => c.consume(batch, signal)));
      const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      if (errors.length === 0) return;
      if (signal?.aborted) throw abortReason(signal);
      const summary = `${errors.length} of ${list.length} consumers failed: ${errors.map(describeError).join('; ')}`;
      if (errors.every(isPermanentError)) {
        if (errors.length === 1) throw errors[0];
        throw new PermanentError(summary, { cause: errors[0] });
      }
      throw new FanOutError(summary, errors);
    },
    async forceFlush(): Promise<void> {
      await Promise.all(list.map((c) => c.forceFlush?.()));
    },
    async shutdown(): Promise<void> {
      await Promise.all(list.map((c) => c.shutdown?.()));
    },
    // Each consume() reaches every consumer, so one producer of the fan-out is one producer of each.
    attachProducer(): () => void {
      const detachers = list.map((c) => c.attachProducer?.());
      let attached = true;
      return () => {
        if (!attached) return;
        attached = false;
        for (const detach of detachers) detach?.();
      };
    },
  };
}
