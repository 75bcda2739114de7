import { BackendError, OwnershipLostError } from '../../backends/consumer.ts';
import { CheckpointFencedError } from '../../ownership/checkpoint.ts';
import { failureHints } from '../../component/failure-hints.ts';

/** How the pump treats a failure of its reader. */
export interface ReaderFailure {
  /** `ownershipLost` and `fenced` end the pump; `retry` reopens the reader after a backoff. */
  readonly action: 'ownershipLost' | 'fenced' | 'retry';
  /**
   * Will not heal by retrying with the same configuration (hub or consumer group not found, refused
   * credential, a start position the hub refuses): retried on a long backoff and reported unhealthy.
   */
  readonly permanent: boolean;
  /** The config key to fix, when the backend named one. */
  readonly configKey?: string;
  /** What to do, when the backend said. */
  readonly hint?: string;
}

/** Classifies what a reader (open, receive, the stall watchdog) threw. */
export function classifyReaderFailure(error: Error): ReaderFailure {
  if (error instanceof OwnershipLostError || (error instanceof BackendError && error.code === 'OwnershipLost')) {
    return { action: 'ownershipLost', permanent: false };
  }
  if (error instanceof CheckpointFencedError) return { action: 'fenced', permanent: false };
  return { action: 'retry', ...failureHints(error) };
}
