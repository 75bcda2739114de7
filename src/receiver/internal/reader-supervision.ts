import { BackendError, type PartitionReader } from '../../backends/consumer.ts';
import { settleWithin } from '../../component/abort.ts';
import { backoffDelayMs } from '../../component/backoff.ts';
import type { PartitionState } from '../receiver-status.ts';
import type { PartitionPumpOptions } from '../partition-pump-options.ts';
import type { ReaderFailure } from './reader-failure.ts';

/** Longest wait for a reader to close; a dead connection must not hold a stop. */
const READER_CLOSE_TIMEOUT_MS = 5_000;
/** Reopen backoff after a transient reader failure: 500 ms doubling to 30 s. */
const TRANSIENT_INITIAL_MS = 500;
const TRANSIENT_MAX_MS = 30_000;
/** Reopen backoff after a permanent reader failure (misconfiguration): 1 s doubling to 5 min. */
const PERMANENT_INITIAL_MS = 1_000;
const PERMANENT_MAX_MS = 300_000;

/** What reporting a reader failure reads of the pump's options. */
export type ReaderSupervisionOptions = Pick<
  PartitionPumpOptions,
  'partitionId' | 'counters' | 'logger' | 'emit' | 'reopenInitialMs' | 'reopenMaxMs'
>;

/**
 * Counts, reports and logs a reader failure the pump retries (`failure.action` is `retry`), and sets the pump's
 * state to retrying; returns how long to wait before reopening, ms. `attempt` counts failures since the last
 * receive that completed, from 1.
 */
export function reportReaderFailure(
  o: ReaderSupervisionOptions,
  err: Error,
  failure: ReaderFailure,
  attempt: number,
  setState: (next: PartitionState) => void,
): number {
  o.counters.backendReconnects++;
  o.counters.restarts[
    failure.permanent ? 'permanent' : err instanceof BackendError && err.code === 'Stalled' ? 'stalled' : 'transient'
  ]++;
  const delayMs = failure.permanent
    ? backoffDelayMs(attempt, PERMANENT_INITIAL_MS, PERMANENT_MAX_MS)
    : backoffDelayMs(attempt, o.reopenInitialMs ?? TRANSIENT_INITIAL_MS, o.reopenMaxMs ?? TRANSIENT_MAX_MS);
  setState({
    state: 'retrying',
    since: Date.now(),
    cause: 'reader',
    permanent: failure.permanent,
    error: err,
    ...(failure.configKey ? { configKey: failure.configKey } : {}),
  });
  o.emit({ type: 'backendDisconnected', partitionId: o.partitionId, error: err });
  const fields = {
    partitionId: o.partitionId,
    error: err.message,
    attempt,
    retryInMs: delayMs,
    configKey: failure.configKey,
    hint: failure.hint,
  };
  if (failure.permanent)
    o.logger.error('partition reader refused: check the configuration; retrying with backoff', fields);
  else o.logger.warn('partition reader failed; reopening after the last processed event', fields);
  return delayMs;
}

/** Closes `reader`, waiting for it at most READER_CLOSE_TIMEOUT_MS (then abandons it, logged). */
export async function closeReader(
  o: Pick<PartitionPumpOptions, 'partitionId' | 'logger'>,
  reader: PartitionReader,
): Promise<void> {
  const closing = reader
    .close()
    .catch((e: unknown) => o.logger.debug('reader close failed', { partitionId: o.partitionId, error: String(e) }));
  if (!(await settleWithin(closing, READER_CLOSE_TIMEOUT_MS)))
    o.logger.warn('reader did not close in time; abandoning it', { partitionId: o.partitionId });
}
