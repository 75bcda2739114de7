import type { StartPosition } from '../backends/consumer.ts';
import type { Checkpoint } from '../ownership/checkpoint.ts';
import type { StartPositionSetting } from '../config/start-position.ts';

/** The start-position part of the receiver config, already validated. */
export interface StartConfig {
  /** `start_position` as the config schema parsed it (`parseStartPositionSetting`). */
  readonly startPosition: StartPositionSetting;
  /** Per-partition overrides. */
  readonly partitionStart: Readonly<Record<string, { sequence_number?: number; offset?: string; inclusive: boolean }>>;
  /** Go receiver: `partition` + `offset` (exclusive), used when `partitionStart` has no entry. */
  readonly partition: string;
  readonly offset: string;
}

/** Why a position was chosen, for the `partitionOpened` log line. */
export type StartSource = 'checkpoint' | 'partition_start' | 'offset' | 'start_position';

/**
 * Chooses where a partition's reader starts. A checkpoint always wins (resume right after it);
 * then a per-partition override, then the Go receiver's partition+offset, then `start_position`.
 */
export function chooseStartPosition(
  partitionId: string,
  checkpoint: Checkpoint | undefined,
  config: StartConfig,
  now: Date = new Date(),
): { position: StartPosition; source: StartSource } {
  if (checkpoint)
    return {
      position: { kind: 'sequenceNumber', sequenceNumber: checkpoint.sequenceNumber, inclusive: false },
      source: 'checkpoint',
    };
  const override = config.partitionStart[partitionId];
  if (override) {
    if (override.sequence_number !== undefined)
      return {
        position: { kind: 'sequenceNumber', sequenceNumber: override.sequence_number, inclusive: override.inclusive },
        source: 'partition_start',
      };
    if (override.offset !== undefined)
      return {
        position: { kind: 'offset', offset: override.offset, inclusive: override.inclusive },
        source: 'partition_start',
      };
  }
  if (config.offset && config.partition === partitionId)
    return { position: { kind: 'offset', offset: config.offset, inclusive: false }, source: 'offset' };
  return { position: resolveStartPosition(config.startPosition, now), source: 'start_position' };
}

/** A parsed `start_position` as a reader position: a look-back becomes the time `now` minus its length. */
export function resolveStartPosition(setting: StartPositionSetting, now: Date = new Date()): StartPosition {
  switch (setting.kind) {
    case 'latest':
    case 'earliest':
      return { kind: setting.kind };
    case 'enqueuedTime':
      return { kind: 'enqueuedTime', enqueuedTime: setting.enqueuedTime };
    case 'lookBack':
      return { kind: 'enqueuedTime', enqueuedTime: new Date(now.getTime() - setting.lookBackMs) };
  }
}
