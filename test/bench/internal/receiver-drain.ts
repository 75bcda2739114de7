/**
 * The library as an embedder runs it: `createAzureEventHubReceiver` with a backend and a format, every
 * partition read by this instance (no checkpoint store), handing its batches to a consumer that only counts
 * the log records. Resolves with the ms from `start()` until every record arrived; the receiver is shut down.
 */
import type { BackendKind } from '../../../src/backends/consumer.ts';
import { createAzureEventHubReceiver } from '../../../src/index.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import type { ReceiverConfigInput } from '../../../src/config/receiver-config.ts';

export interface ReceiverDrainOptions {
  readonly connectionString: string;
  readonly backend: BackendKind;
  /** The receiver's `format` (`azure`, `raw`, ...). */
  readonly format: ReceiverConfigInput['format'];
  /** Log records the backlog decodes to; the drain ends when the consumer counted this many. */
  readonly records: number;
  /** Give up after this long, in ms. */
  readonly timeoutMs: number;
  /** More receiver settings (e.g. `max_poll_events`). */
  readonly settings?: Record<string, unknown>;
}

export async function drainWithReceiver(options: ReceiverDrainOptions): Promise<number> {
  let counted = 0;
  let done!: () => void;
  const drained = new Promise<void>((resolve) => (done = resolve));
  const consumer = {
    consume(batch: SignalBatch): Promise<void> {
      counted += batch.records.length;
      if (counted >= options.records) done();
      return Promise.resolve();
    },
  };
  const receiver = createAzureEventHubReceiver(
    {
      connection: options.connectionString,
      backend: options.backend,
      format: options.format,
      start_position: 'earliest',
      ...options.settings,
    },
    consumer,
  );
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await receiver.start();
    await Promise.race([
      drained,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`receiver drain timed out with ${counted} of ${options.records} records`)),
          options.timeoutMs,
        );
      }),
    ]);
    return performance.now() - started;
  } finally {
    clearTimeout(timer);
    await receiver.shutdown();
  }
}
