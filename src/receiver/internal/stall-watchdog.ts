import { BackendError, type StartPosition } from '../../backends/consumer.ts';
import { raceAbort } from '../../component/abort.ts';
import { DEFAULT_STALL_TIMEOUT_MS, type PartitionPumpOptions } from '../partition-pump-options.ts';

/** Longest wait for the stall watchdog's partition properties. */
const WATCHDOG_TIMEOUT_MS = 10_000;

/**
 * Throws a retryable error (so the pump reopens its reader) when the hub holds events this reader is not
 * delivering: newer than `lastSequenceNumber` (the last the consumer resolved, -1 before the first) or than
 * the start position.
 */
export async function checkStalled(
  o: Pick<PartitionPumpOptions, 'hub' | 'partitionId' | 'start' | 'stallTimeoutMs'>,
  lastSequenceNumber: number,
  stopReading: AbortSignal,
): Promise<void> {
  const signal = AbortSignal.any([stopReading, AbortSignal.timeout(WATCHDOG_TIMEOUT_MS)]);
  const props = await raceAbort(o.hub.getPartitionProperties(o.partitionId, signal), signal);
  const position = lastSequenceNumber >= 0 ? lastSequenceNumber : startSequenceNumber(o.start);
  if (position !== undefined && props.lastEnqueuedSequenceNumber > position) {
    const stallMs = o.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
    throw new BackendError(
      `partition ${o.partitionId}: no events for ${stallMs} ms although the hub holds up to ` +
        `${props.lastEnqueuedSequenceNumber}; reopening`,
      { retryable: true, code: 'Stalled' },
    );
  }
}

/** The sequence number a start position is known to begin after, when it names one. */
function startSequenceNumber(p: StartPosition): number | undefined {
  if (p.kind === 'sequenceNumber') return p.inclusive ? p.sequenceNumber - 1 : p.sequenceNumber;
  if (p.kind === 'earliest') return -1;
  return undefined;
}
