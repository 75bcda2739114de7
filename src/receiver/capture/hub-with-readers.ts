/** A hub that is the given one except for how partitions are opened (the capture readers wrap it this way). */
import type { HubClient, OpenOptions, PartitionReader } from '../../backends/consumer.ts';

export function hubWithReaders(
  hub: HubClient,
  open: (partitionId: string, options: OpenOptions) => PartitionReader,
): HubClient {
  return {
    kind: hub.kind,
    fullyQualifiedNamespace: hub.fullyQualifiedNamespace,
    eventHubName: hub.eventHubName,
    consumerGroup: hub.consumerGroup,
    getHubProperties: (signal) => hub.getHubProperties(signal),
    getPartitionProperties: (id, signal) => hub.getPartitionProperties(id, signal),
    openPartition: async (id, options) => open(id, options),
    close: () => hub.close(),
  };
}
