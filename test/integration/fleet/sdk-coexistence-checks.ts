/** What the mixed-fleet tests check: the hub's audit of reader links, and the events each side read. */
import type { ReceiverLinkRecord } from '../../../src/emulator/index.ts';
import type { Instance } from '../../helpers/fleet.ts';

/** Our readers open with the claim's epoch (≥ 1); the SDK processors with owner level 0. */
export const isOurs = (r: ReceiverLinkRecord): boolean => (r.epoch ?? 0) >= 1;

/**
 * Reader links that were displaced by a higher or equal owner level (`amqp:link:stolen`) where either side
 * is one of ours: a live owner overridden across the fleets. (SDK processors do steal from each other by
 * design when their balance is off; those are counted apart.)
 */
export function steals(records: readonly ReceiverLinkRecord[]): { crossFleet: string[]; sdkOnly: number } {
  const crossFleet: string[] = [];
  let sdkOnly = 0;
  for (const r of records) {
    if (r.detachCondition !== 'amqp:link:stolen') continue;
    const by = records.find(
      (n) =>
        n !== r &&
        n.partitionId === r.partitionId &&
        n.consumerGroup === r.consumerGroup &&
        n.attachedAt >= r.attachedAt,
    );
    if (isOurs(r) || (by && isOurs(by))) {
      crossFleet.push(`partition ${r.partitionId}: epoch ${r.epoch} displaced by epoch ${by?.epoch}`);
    } else sdkOnly++;
  }
  return { crossFleet, sdkOnly };
}

/** Reader links per partition minus one: how often each partition changed hands. */
export function moves(records: readonly ReceiverLinkRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of records) counts.set(r.partitionId, (counts.get(r.partitionId) ?? -1) + 1);
  return counts;
}

/** Every read event over both fleets: `pid/seq` → times read. */
export function readCounts(
  ours: readonly Instance[],
  sdks: readonly { readonly records: readonly [string, number][] }[],
): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (pid: string, seq: number) => counts.set(`${pid}/${seq}`, (counts.get(`${pid}/${seq}`) ?? 0) + 1);
  for (const i of ours) for (const [pid, seq] of i.records) add(pid, seq);
  for (const s of sdks) for (const [pid, seq] of s.records) add(pid, seq);
  return counts;
}

/** Events produced and never read, and the duplicates per partition. */
export function tallyReads(produced: ReadonlyMap<string, number>, counts: ReadonlyMap<string, number>) {
  const lost: string[] = [];
  for (const [pid, n] of produced) for (let s = 0; s < n; s++) if (!counts.has(`${pid}/${s}`)) lost.push(`${pid}/${s}`);
  const duplicates = new Map<string, number>();
  for (const [key, n] of counts) {
    if (n > 1) duplicates.set(key.split('/')[0]!, (duplicates.get(key.split('/')[0]!) ?? 0) + n - 1);
  }
  return { lost, duplicates };
}
