import { CheckpointFencedError } from '../../ownership/checkpoint.ts';
import type { PartitionPumpOptions } from '../partition-pump-options.ts';

/**
 * Writes the pump's checkpoint: when due (`final` false, after every receive) or whatever was marked since the
 * last write (`final`, when the pump ends). A failure is counted, reported and logged, not thrown, except a
 * fenced one while reading: the lease is gone, so the pump must end.
 */
export async function writeCheckpoint(
  o: Pick<PartitionPumpOptions, 'partitionId' | 'checkpointer' | 'counters' | 'logger' | 'emit'>,
  final: boolean,
): Promise<void> {
  try {
    const wrote = final ? await o.checkpointer.flush() : await o.checkpointer.flushIfDue();
    if (wrote) {
      o.counters.checkpointWrites++;
      o.emit({
        type: 'checkpointWritten',
        partitionId: o.partitionId,
        sequenceNumber: o.checkpointer.writtenSequenceNumber()!,
      });
    }
  } catch (error) {
    const err = error instanceof Error ? error : new Error(String(error));
    o.counters.checkpointFailures++;
    o.emit({ type: 'checkpointFailed', partitionId: o.partitionId, error: err });
    o.logger.warn('checkpoint write failed', { partitionId: o.partitionId, error: err.message, final });
    if (err instanceof CheckpointFencedError && !final) throw err;
  }
}
