/** Small helpers for the emulator's SDK-driven integration tests. Every wait is bounded. */
import type { EventHubConsumerClient, EventPosition, ReceivedEventData, SubscribeOptions } from '@azure/event-hubs';
import { waitUntil } from '../../helpers/wait-until.ts';

/** Short retries so tests that provoke retryable errors finish fast (the SDK default is 3 × 30 s). */
export const FAST_RETRY = { maxRetries: 1, retryDelayInMs: 100, maxRetryDelayInMs: 200, timeoutInMs: 5_000 } as const;

/** Subscribes to one partition until `count` events arrived (or rejects after `timeoutMs`). */
export async function collectEvents(
  consumer: EventHubConsumerClient,
  partitionId: string,
  startPosition: EventPosition,
  count: number,
  options: { timeoutMs?: number; subscribe?: SubscribeOptions } = {},
): Promise<ReceivedEventData[]> {
  const events: ReceivedEventData[] = [];
  const errors: Error[] = [];
  let subscription: { close(): Promise<void> } | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `received ${events.length} of ${count} events within ${options.timeoutMs ?? 10_000} ms; errors: ` +
                `${errors.map((e) => e.message).join('; ')}`,
            ),
          ),
        options.timeoutMs ?? 10_000,
      );
      subscription = consumer.subscribe(
        partitionId,
        {
          processEvents: async (batch) => {
            events.push(...batch);
            if (events.length >= count) {
              clearTimeout(timer);
              resolve();
            }
          },
          processError: async (err) => {
            errors.push(err);
          },
        },
        { startPosition, maxWaitTimeInSeconds: 1, ...options.subscribe },
      );
    });
  } finally {
    await subscription?.close();
  }
  return events;
}

/**
 * Resolves when `predicate` holds, polling every 10 ms (an async predicate is awaited before the next
 * poll); rejects after `timeoutMs`. `what` may be a function, called at timeout to describe the state.
 */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what: string | (() => string) = 'condition',
): Promise<void> {
  await waitUntil(predicate, timeoutMs, what, 10);
}
