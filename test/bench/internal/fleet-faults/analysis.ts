/**
 * What the sink saw, against what was produced: lost records, duplicates, the re-reads each crash caused,
 * and health timelines reduced to their transitions.
 */
import type { HealthSample } from './collector.ts';
import type { Delivery } from './id-sink.ts';

export interface DeliveryStats {
  readonly sent: number;
  readonly delivered: number;
  readonly lost: number;
  /** The first few lost ids, `group/partition/seq`. */
  readonly lostSample: string[];
  /** Extra copies beyond the first. */
  readonly duplicates: number;
  readonly duplicatePct: number;
  /**
   * Extra copies posted by the instance that posted the previous copy: it read the partition again itself (re-claimed
   * after losing it) or re-sent an export.
   */
  readonly sameInstanceDuplicates: number;
}

export function deliveryStats(
  deliveries: Map<string, Delivery[]>,
  group: string,
  producedAt: number[][],
): DeliveryStats {
  let sent = 0;
  let delivered = 0;
  let duplicates = 0;
  let sameInstance = 0;
  const lostSample: string[] = [];
  let lost = 0;
  producedAt.forEach((times, p) => {
    for (let seq = 0; seq < times.length; seq++) {
      sent++;
      const copies = deliveries.get(`${group}/${p}/${seq}`);
      if (!copies) {
        lost++;
        if (lostSample.length < 10) lostSample.push(`${group}/${p}/${seq}`);
        continue;
      }
      delivered++;
      duplicates += copies.length - 1;
      for (let i = 1; i < copies.length; i++) if (copies[i]!.instance === copies[i - 1]!.instance) sameInstance++;
    }
  });
  return {
    sent,
    delivered,
    lost,
    lostSample,
    duplicates,
    duplicatePct: sent ? (100 * duplicates) / sent : 0,
    sameInstanceDuplicates: sameInstance,
  };
}

export interface Reread {
  readonly partition: number;
  readonly records: number;
  /** Production-time span of the re-delivered records, seconds. */
  readonly spanS: number;
}

export interface InstanceRereads {
  readonly instance: string;
  /** Re-delivered records per partition, of records this instance had delivered first. */
  readonly partitions: Reread[];
  readonly total: number;
  readonly largest?: Reread;
}

/**
 * Attributes each re-delivery (a copy posted by another instance than the previous copy) to the instance
 * that posted the previous copy: its work was done again. Per instance and partition: how many records,
 * and the span of their production times.
 */
export function rereadsByInstance(
  deliveries: Map<string, Delivery[]>,
  group: string,
  producedAt: number[][],
): Map<string, InstanceRereads> {
  const acc = new Map<string, Map<number, { n: number; min: number; max: number }>>();
  producedAt.forEach((times, p) => {
    for (let seq = 0; seq < times.length; seq++) {
      const copies = deliveries.get(`${group}/${p}/${seq}`);
      if (!copies) continue;
      for (let i = 1; i < copies.length; i++) {
        const prev = copies[i - 1]!.instance;
        if (prev === copies[i]!.instance) continue;
        const perPartition = acc.get(prev) ?? new Map<number, { n: number; min: number; max: number }>();
        acc.set(prev, perPartition);
        const cell = perPartition.get(p) ?? { n: 0, min: Infinity, max: -Infinity };
        perPartition.set(p, cell);
        cell.n++;
        cell.min = Math.min(cell.min, times[seq]!);
        cell.max = Math.max(cell.max, times[seq]!);
      }
    }
  });
  const out = new Map<string, InstanceRereads>();
  for (const [instance, perPartition] of acc) {
    const partitions = [...perPartition].map(([partition, c]) => ({
      partition,
      records: c.n,
      spanS: (c.max - c.min) / 1000,
    }));
    const largest = partitions.reduce<Reread | undefined>((a, b) => (!a || b.records > a.records ? b : a), undefined);
    out.set(instance, { instance, partitions, total: partitions.reduce((n, r) => n + r.records, 0), largest });
  }
  return out;
}

export interface Transition {
  /** Seconds since the reference time. */
  readonly t: number;
  readonly code: number | string;
  readonly status?: string;
  readonly reason?: string;
  readonly live?: number | string;
}

/** The health samples reduced to their changes of (code, status, reason, liveness code). */
export function transitions(samples: readonly HealthSample[], ref: number): Transition[] {
  const out: Transition[] = [];
  let last = '';
  for (const s of samples) {
    const key = `${s.code}|${s.status}|${s.reason}|${s.liveCode}`;
    if (key === last) continue;
    last = key;
    out.push({
      t: Math.round((s.at - ref) / 100) / 10,
      code: s.code ?? 'no answer',
      ...(s.status ? { status: s.status } : {}),
      ...(s.reason ? { reason: s.reason } : {}),
      ...('liveCode' in s ? { live: s.liveCode ?? 'no answer' } : {}),
    });
  }
  return out;
}

const fmtTransition = (x: Transition): string => {
  const status = x.status ? ` ${x.status}` : '';
  const reason = x.reason ? `/${x.reason}` : '';
  const live = x.live !== undefined ? ` live=${x.live}` : '';
  return `${x.t}s ${x.code}${status}${reason}${live}`;
};

export const fmtTransitions = (ts: readonly Transition[]): string => ts.map(fmtTransition).join(' → ');

/** Seconds from `from` to the first sample at or after it that matches; undefined when none did (before `until`). */
export function firstAfter(
  samples: readonly HealthSample[],
  from: number,
  match: (s: HealthSample) => boolean,
  until = Infinity,
): number | undefined {
  const hit = samples.find((s) => s.at >= from && s.at <= until && match(s));
  return hit ? (hit.at - from) / 1000 : undefined;
}
