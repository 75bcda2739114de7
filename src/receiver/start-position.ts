import type { StartPosition } from '../backends/consumer.ts';
import type { Checkpoint } from '../ownership/checkpoint.ts';
import { parseDurationMs } from '../config/duration.ts';

/** The start-position part of the receiver config, already validated. */
export interface StartConfig {
  /** `latest`, `earliest`, an RFC 3339 time, or a look-back duration. */
  readonly startPosition: string;
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
export function chooseStartPosition(partitionId: string, checkpoint: Checkpoint | undefined, config: StartConfig, now: Date = new Date()): { position: StartPosition; source: StartSource } {
  if (checkpoint) return { position: { kind: 'sequenceNumber', sequenceNumber: checkpoint.sequenceNumber, inclusive: false }, source: 'checkpoint' };
  const override = config.partitionStart[partitionId];
  if (override) {
    if (override.sequence_number !== undefined) return { position: { kind: 'sequenceNumber', sequenceNumber: override.sequence_number, inclusive: override.inclusive }, source: 'partition_start' };
    if (override.offset !== undefined) return { position: { kind: 'offset', offset: override.offset, inclusive: override.inclusive }, source: 'partition_start' };
  }
  if (config.offset && config.partition === partitionId) return { position: { kind: 'offset', offset: config.offset, inclusive: false }, source: 'offset' };
  return { position: parseStartPosition(config.startPosition, now), source: 'start_position' };
}

/** Parses `start_position`: `latest`, `earliest`, an RFC 3339 time, or a look-back duration ("1h" = one hour ago). */
export function parseStartPosition(text: string, now: Date = new Date()): StartPosition {
  const value = text.trim();
  if (value === '' || value.toLowerCase() === 'latest') return { kind: 'latest' };
  if (value.toLowerCase() === 'earliest') return { kind: 'earliest' };
  const lookBack = parseDurationMs(value);
  if (lookBack !== undefined && /[a-zµ]$/i.test(value)) return { kind: 'enqueuedTime', enqueuedTime: new Date(now.getTime() - lookBack) };
  if (/^\d{4}-\d{2}-\d{2}T/.test(value)) {
    const time = new Date(value);
    if (!Number.isNaN(time.getTime())) return { kind: 'enqueuedTime', enqueuedTime: time };
  }
  throw new Error(`start_position '${value}' is not latest, earliest, an RFC 3339 time (2026-01-02T15:04:05Z) or a look-back duration (1h)`);
}
