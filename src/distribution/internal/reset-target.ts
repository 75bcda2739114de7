import type { HubClient } from '../../backends/consumer.ts';
import type { ResetTarget, ResolveCheckpoint } from '../../ownership/admin.ts';
import { UsageError } from '../usage-error.ts';

/** Longest wait for the one event a time or sequence-number reset reads to learn an offset. 10 000 ms. */
export const RESET_READ_TIMEOUT_MS = 10_000;

/** `--to`: `earliest`, `latest`, an RFC 3339 time, or a sequence number (`-1` = before the first event). */
export function parseResetTarget(text: string | undefined): ResetTarget {
  if (!text)
    throw new UsageError(
      '--to is required: earliest, latest, an RFC 3339 time (2026-01-02T03:04:05Z) or a sequence number',
    );
  if (text === 'earliest') return { kind: 'earliest' };
  if (text === 'latest') return { kind: 'latest' };
  if (/^-?\d+$/.test(text)) {
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n < -1) throw new UsageError(`--to ${text}: a sequence number is an integer ≥ -1`);
    return n === -1 ? { kind: 'earliest' } : { kind: 'sequenceNumber', sequenceNumber: n };
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) {
    const time = new Date(text);
    if (!Number.isNaN(time.getTime())) return { kind: 'time', time };
  }
  throw new UsageError(
    `--to '${text}': expected earliest, latest, an RFC 3339 time with a zone (2026-01-02T03:04:05Z) or a sequence ` +
      `number`,
  );
}

/** Reads the single event at `position` (or undefined when none arrives in time). */
async function readOne(
  hub: HubClient,
  partitionId: string,
  position: Parameters<HubClient['openPartition']>[1]['startPosition'],
) {
  const reader = await hub.openPartition(partitionId, {
    startPosition: position,
    prefetchCount: 1,
    maxBatchSize: 1,
    trackLastEnqueuedEventProperties: false,
  });
  try {
    const events = await reader.receive(1, RESET_READ_TIMEOUT_MS, AbortSignal.timeout(RESET_READ_TIMEOUT_MS + 5_000));
    return events[0];
  } finally {
    await reader.close();
  }
}

/**
 * Resolves reset targets against the hub. A checkpoint means "processed up to and including", so:
 * `latest` is the last enqueued event; a time is the last event enqueued before it (the first one at or
 * after it is read next); a sequence number N makes N the next event read, i.e. checkpoint N − 1. Each
 * checkpoint carries that event's offset, which the Azure SDKs resume from.
 */
export function hubResolver(hub: HubClient): ResolveCheckpoint {
  const checkpointBefore = async (partitionId: string, sequenceNumber: number) => {
    const props = await hub.getPartitionProperties(partitionId);
    const previous = sequenceNumber - 1;
    if (props.isEmpty || previous < props.beginningSequenceNumber) return { sequenceNumber: -1, offset: '-1' };
    if (previous >= props.lastEnqueuedSequenceNumber)
      return { sequenceNumber: props.lastEnqueuedSequenceNumber, offset: props.lastEnqueuedOffset };
    const event = await readOne(hub, partitionId, {
      kind: 'sequenceNumber',
      sequenceNumber: previous,
      inclusive: true,
    });
    if (!event) throw new Error(`partition ${partitionId}: could not read event ${previous} to learn its offset`);
    return { sequenceNumber: event.sequenceNumber, offset: event.offset };
  };
  return async (partitionId, target) => {
    if (target.kind === 'latest') {
      const props = await hub.getPartitionProperties(partitionId);
      return props.isEmpty
        ? { sequenceNumber: -1, offset: '-1' }
        : { sequenceNumber: props.lastEnqueuedSequenceNumber, offset: props.lastEnqueuedOffset };
    }
    if (target.kind === 'sequenceNumber') return checkpointBefore(partitionId, target.sequenceNumber);
    if (target.kind === 'time') {
      const props = await hub.getPartitionProperties(partitionId);
      if (props.isEmpty || props.lastEnqueuedOnUtc.getTime() < target.time.getTime()) {
        return props.isEmpty
          ? { sequenceNumber: -1, offset: '-1' }
          : { sequenceNumber: props.lastEnqueuedSequenceNumber, offset: props.lastEnqueuedOffset };
      }
      const first = await readOne(hub, partitionId, { kind: 'enqueuedTime', enqueuedTime: target.time });
      if (!first) return { sequenceNumber: props.lastEnqueuedSequenceNumber, offset: props.lastEnqueuedOffset };
      return checkpointBefore(partitionId, first.sequenceNumber);
    }
    return { sequenceNumber: -1, offset: '-1' };
  };
}
