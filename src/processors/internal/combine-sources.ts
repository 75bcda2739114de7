import type { BatchSource } from '../../pipeline/signal-batch.ts';

/**
 * One source for a batch combined from several: the common source when all come from one partition
 * (sequence range widened); otherwise the partition ids (and any other differing field) joined with ','
 * and sequence numbers -1.
 */
export function combineSources(sources: readonly BatchSource[]): BatchSource {
  const first = sources[0]!;
  const samePartition = sources.every(
    (s) =>
      s.partitionId === first.partitionId &&
      s.eventHubName === first.eventHubName &&
      s.namespace === first.namespace &&
      s.consumerGroup === first.consumerGroup,
  );
  if (samePartition) {
    return {
      ...first,
      firstSequenceNumber: Math.min(...sources.map((s) => s.firstSequenceNumber)),
      lastSequenceNumber: Math.max(...sources.map((s) => s.lastSequenceNumber)),
    };
  }
  const join = (pick: (s: BatchSource) => string) => [...new Set(sources.map(pick))].join(',');
  return {
    namespace: join((s) => s.namespace),
    eventHubName: join((s) => s.eventHubName),
    consumerGroup: join((s) => s.consumerGroup),
    partitionId: join((s) => s.partitionId),
    firstSequenceNumber: -1,
    lastSequenceNumber: -1,
  };
}
