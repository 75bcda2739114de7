import { PermanentError, isPermanentError } from '../component/errors.ts';
import type { SignalConsumer } from './consumer.ts';
import type { SignalBatch } from './signal-batch.ts';
import { abortReason } from '../component/abort.ts';
import { linkSignals } from './internal/link-signals.ts';
import { describeError } from './internal/classify-export-error.ts';
import { isPartialRefusal, PartialRefusalError } from './partial-refusal.ts';

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
 * `FanOutError`), otherwise with a `PermanentError` listing them (when each refused only some records, a
 * `PartialRefusalError` with all their refusals).
 *
 * Duplicates: a retry re-sends the batch to every consumer, including those that had accepted it, so a
 * retryable failure of one destination duplicates the batch in the others (at-least-once per
 * destination). Wrap each consumer in its own `withRetry` to keep retries local to the failing one.
 */
export function fanOut(consumers: readonly SignalConsumer[]): SignalConsumer {
  if (consumers.length === 1) return consumers[0]!;
  const list = [...consumers];
  return {
    async consume(batch: SignalBatch, signal?: AbortSignal): Promise<void> {
      const linked = linkSignals(signal, list.length);
      let results: PromiseSettledResult<void>[];
      try {
        results = await Promise.allSettled(list.map((c, i) => c.consume(batch, linked.signals[i])));
      } finally {
        linked.release();
      }
      const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      if (errors.length === 0) return;
      if (signal?.aborted) throw abortReason(signal);
      const summary = `${errors.length} of ${list.length} consumers failed: ${errors.map(describeError).join('; ')}`;
      if (errors.every(isPermanentError)) {
        if (errors.length === 1) throw errors[0];
        // Each consumer refused only some records: together they refused the union, the rest went everywhere.
        if (errors.every(isPartialRefusal)) {
          throw new PartialRefusalError(
            errors.flatMap((e) => e.refusals),
            Math.min(...errors.map((e) => e.delivered)),
          );
        }
        throw new PermanentError(summary, { cause: errors[0] });
      }
      throw new FanOutError(summary, errors);
    },
    // Each consume() reaches every consumer, so one producer of the fan-out is one producer of each.
    ...sharedLifecycle(list),
    acceptsEncodedLogs: list.every((c) => c.acceptsEncodedLogs === true),
  };
}

/**
 * What a stage that hands batches to several consumers (a fan-out, the signal router) does with their
 * lifecycle: flushes and shuts down all of them, and announces one producer of its own to each of them.
 */
export function sharedLifecycle(
  consumers: readonly SignalConsumer[],
): Required<Pick<SignalConsumer, 'forceFlush' | 'shutdown' | 'attachProducer'>> {
  return {
    async forceFlush(): Promise<void> {
      await Promise.all(consumers.map((c) => c.forceFlush?.()));
    },
    async shutdown(): Promise<void> {
      await Promise.all(consumers.map((c) => c.shutdown?.()));
    },
    attachProducer(): () => void {
      const detachers = consumers.map((c) => c.attachProducer?.());
      let attached = true;
      return () => {
        if (!attached) return;
        attached = false;
        for (const detach of detachers) detach?.();
      };
    },
  };
}
