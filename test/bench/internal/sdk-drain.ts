/**
 * The baseline of the throughput benchmarks: the bare Azure SDK draining a backlog, one
 * `EventHubConsumerClient.subscribe(partitionId, ...)` per partition with a no-op handler, from the start
 * of each partition, receive only (no checkpoints, no decoding: `skipParsingBodyAsJson`).
 */
import { EventHubConsumerClient } from '@azure/event-hubs';
import type { Subscription } from '@azure/event-hubs';

export interface SdkDrainOptions {
  readonly connectionString: string;
  readonly partitions: number;
  /** Events waiting in each partition; the drain ends when every partition delivered this many. */
  readonly eventsPerPartition: number;
  /** Events the SDK prefetches per partition (its credit window). */
  readonly prefetchCount: number;
  /** Most events per handler call. */
  readonly maxBatchSize: number;
  /** Give up after this long, in ms. */
  readonly timeoutMs: number;
}

/** Drains every partition from its first event; resolves with the ms until all events arrived. */
export async function drainWithSdk(options: SdkDrainOptions): Promise<number> {
  const { partitions, eventsPerPartition } = options;
  const client = new EventHubConsumerClient('$Default', options.connectionString);
  const started = performance.now();
  const subscriptions: Subscription[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      let donePartitions = 0;
      const timer = setTimeout(() => reject(new Error('sdk drain timed out')), options.timeoutMs);
      for (let p = 0; p < partitions; p++) {
        let count = 0;
        const handlers = {
          processEvents: async (events: unknown[]) => {
            const before = count;
            count += events.length;
            if (before < eventsPerPartition && count >= eventsPerPartition && ++donePartitions === partitions) {
              clearTimeout(timer);
              resolve();
            }
          },
          processError: async () => {},
        };
        subscriptions.push(
          client.subscribe(String(p), handlers, {
            startPosition: { offset: '-1' },
            prefetchCount: options.prefetchCount,
            maxBatchSize: options.maxBatchSize,
            maxWaitTimeInSeconds: 60,
            skipParsingBodyAsJson: true,
            trackLastEnqueuedEventProperties: true,
          }),
        );
      }
    });
    return performance.now() - started;
  } finally {
    await Promise.all(subscriptions.map((s) => s.close()));
    await client.close();
  }
}
