import type { PartitionProperties } from '../../backends/consumer.ts';
import type { Checkpoint } from '../../ownership/checkpoint.ts';

/** `on_invalid_checkpoint`: what a partition start does with a checkpoint that cannot be right. */
export type InvalidCheckpointPolicy = 'fail' | 'earliest' | 'latest';

/** The partition's last event as the error names it. */
function lastEventText(lastSequenceNumber: number): string {
  return lastSequenceNumber < 0 ? 'the partition has never held an event' : `sequence number ${lastSequenceNumber}`;
}

/**
 * A checkpoint beyond the partition's last sequence number. It cannot come from reading this partition:
 * the hub was deleted and recreated under the same name, or the checkpoint container belongs to another
 * hub. Positioning there would wait for events that already exist under smaller numbers (the service
 * refuses such a position), so the start stops with this error under `on_invalid_checkpoint: fail`.
 * Permanent: retrying cannot help until an operator resets the checkpoint or changes the policy.
 */
export class InvalidCheckpointError extends Error {
  override readonly name = 'InvalidCheckpointError';
  readonly permanent = true;
  readonly retryable = false;
  readonly code = 'InvalidCheckpoint';
  readonly configKey = 'on_invalid_checkpoint';
  readonly hint: string;
  /**
   * @param checkpointSequenceNumber the stored sequence number; undefined when the blob has none usable.
   * @param lastSequenceNumber the partition's last sequence number (-1: never held an event).
   */
  constructor(
    readonly partitionId: string,
    readonly checkpointSequenceNumber: number | undefined,
    readonly lastSequenceNumber: number,
    detail?: string,
  ) {
    super(
      checkpointSequenceNumber === undefined
        ? `partition ${partitionId}: the checkpoint cannot be used (${detail ?? 'no sequence number'})`
        : `partition ${partitionId}: the checkpoint (sequence number ${checkpointSequenceNumber}) is beyond the ` +
            `last event ` +
            `in the partition ` +
            `(${lastEventText(lastSequenceNumber)}); ` +
            'was the hub recreated, or is the checkpoint container shared with another hub?',
    );
    this.hint =
      `reset it (otelcol-azure-eventhub checkpoints reset --config <file> --partition ${partitionId} --to ` +
      `earliest|latest), ` +
      'or set on_invalid_checkpoint: earliest | latest to let the receiver do so';
  }
}

/** The invalid checkpoint error for this start, or undefined when the checkpoint is plausible (or absent). */
export function invalidCheckpoint(
  partitionId: string,
  checkpoint: Checkpoint | undefined,
  props: PartitionProperties,
): InvalidCheckpointError | undefined {
  if (!checkpoint || checkpoint.sequenceNumber <= props.lastEnqueuedSequenceNumber) return undefined;
  return new InvalidCheckpointError(partitionId, checkpoint.sequenceNumber, props.lastEnqueuedSequenceNumber);
}
