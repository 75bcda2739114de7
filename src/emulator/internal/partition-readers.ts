/**
 * The receivers of each partition and consumer group, and the service's owner-level (epoch) rules: a
 * receiver with an epoch at least the highest present takes over and the others are detached with
 * amqp:link:stolen; a lower epoch, or none, is refused while an epoch receiver exists; without epochs at
 * most 5 receivers share a partition (EVENT-HUBS-PROTOCOL.md, "Epoch").
 */
import { LINK_STOLEN, RESOURCE_LIMIT_EXCEEDED, refusedByEpoch } from './conditions.ts';
import type { ConsumerLink } from './consumer-link.ts';

/** Non-epoch receivers allowed per partition and consumer group, as on the service. */
export const MAX_NON_EPOCH_RECEIVERS = 5;

export type Admission = { ok: true; stolen: ConsumerLink[] } | { ok: false; condition: string; description: string };

function readerKey(hub: string, consumerGroup: string, partitionId: string): string {
  return `${hub.toLowerCase()}\u0000${consumerGroup.toLowerCase()}\u0000${partitionId}`;
}

export class PartitionReaders {
  private readonly readers = new Map<string, Set<ConsumerLink>>();

  /**
   * Decides whether a receiver with `epoch` may attach. When it may, the receivers it takes over from are
   * removed from the registry and returned: detach them before accepting the new one, so that the old
   * link's end precedes the new link's start.
   */
  admit(hub: string, consumerGroup: string, partitionId: string, epoch: number | undefined): Admission {
    const current = this.readers.get(readerKey(hub, consumerGroup, partitionId));
    if (!current || current.size === 0) return { ok: true, stolen: [] };
    let highest: number | undefined;
    for (const l of current)
      if (l.epoch !== undefined && (highest === undefined || l.epoch > highest)) highest = l.epoch;
    if (highest !== undefined && (epoch === undefined || epoch < highest)) {
      return { ok: false, condition: LINK_STOLEN, description: refusedByEpoch(epoch, highest) };
    }
    if (epoch === undefined) {
      if (current.size >= MAX_NON_EPOCH_RECEIVERS) {
        return {
          ok: false,
          condition: RESOURCE_LIMIT_EXCEEDED,
          description:
            `Exceeded the maximum number of allowed receivers per partition in a consumer group which is ` +
            `${MAX_NON_EPOCH_RECEIVERS}.`,
        };
      }
      return { ok: true, stolen: [] };
    }
    const stolen = [...current];
    current.clear();
    return { ok: true, stolen };
  }

  add(link: ConsumerLink): void {
    const key = readerKey(link.log.hub, link.consumerGroup, link.log.partitionId);
    const set = this.readers.get(key) ?? new Set<ConsumerLink>();
    set.add(link);
    this.readers.set(key, set);
  }

  remove(link: ConsumerLink): void {
    const key = readerKey(link.log.hub, link.consumerGroup, link.log.partitionId);
    const set = this.readers.get(key);
    set?.delete(link);
    if (set && set.size === 0) this.readers.delete(key);
  }
}
