/** The audit of receiver links, so tests can prove that no two readers held one partition at once. */
import type { ReceiverAudit, ReceiverLinkRecord } from '../types.ts';

/** Wall-clock milliseconds with sub-millisecond precision, so close events keep their order. */
export function preciseNowMs(): number {
  return performance.timeOrigin + performance.now();
}

export class ReceiverAuditLog implements ReceiverAudit {
  readonly records: ReceiverLinkRecord[] = [];

  add(record: ReceiverLinkRecord): ReceiverLinkRecord {
    this.records.push(record);
    return record;
  }

  overlaps(): Array<[ReceiverLinkRecord, ReceiverLinkRecord]> {
    const found: Array<[ReceiverLinkRecord, ReceiverLinkRecord]> = [];
    const groups = new Map<string, ReceiverLinkRecord[]>();
    for (const r of this.records) {
      const key = `${r.hub.toLowerCase()}\u0000${r.consumerGroup.toLowerCase()}\u0000${r.partitionId}`;
      const list = groups.get(key) ?? [];
      list.push(r);
      groups.set(key, list);
    }
    for (const list of groups.values()) {
      for (let i = 0; i < list.length; i++) {
        for (let j = i + 1; j < list.length; j++) {
          const a = list[i]!;
          const b = list[j]!;
          const aEnd = a.detachedAt ?? Number.POSITIVE_INFINITY;
          const bEnd = b.detachedAt ?? Number.POSITIVE_INFINITY;
          if (a.attachedAt < bEnd && b.attachedAt < aEnd) found.push([a, b]);
        }
      }
    }
    return found;
  }

  clear(): void {
    this.records.length = 0;
  }
}
