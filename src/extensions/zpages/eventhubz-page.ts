import { redactError } from '../../component/redact.ts';
import type { PartitionOwnershipInfo } from '../../ownership/admin.ts';
import { sortPartitionIds } from '../../ownership/partition-order.ts';
import type { HubPartitionLag, PartitionStats, ReceiverStats } from '../../receiver/receiver-status.ts';
import type { FleetRecorder } from './fleet-recorder.ts';
import { count, duration, esc, isoTime, raw, table } from './html.ts';
import { lagChart } from './lag-chart.ts';
import { ownerColours, ownershipMap } from './ownership-map.ts';

/** One receiver as the page shows it. */
export interface EventHubzReceiver {
  readonly id: string;
  readonly recorder: FleetRecorder;
  /** The receiver's `retention`, in ms, for the headroom column; unset: the column says how to get it. */
  readonly retentionMs?: number;
}

export interface EventHubzOptions {
  /** Deadline of the ownership listing of each receiver, in ms. */
  readonly ownershipTimeoutMs: number;
  readonly now: number;
}

type Ownership = { readonly list: readonly PartitionOwnershipInfo[] } | { readonly error: string };

/**
 * `/debug/eventhubz`: per receiver, the fleet's ownership map read from the checkpoint store now (every
 * partition's owner, epoch and lease state), every partition's checkpoint and lag from the receiver's
 * hub-lag monitor with a 15-minute chart, the retention headroom, the failure counters and the last errors.
 */
export async function eventhubzBody(
  receivers: readonly EventHubzReceiver[],
  options: EventHubzOptions,
): Promise<string> {
  if (receivers.length === 0) return '<p>No Event Hubs receiver is running in this process.</p>';
  const sections = await Promise.all(
    receivers.map(async (r) => section(r, await readOwnership(r, options), options.now)),
  );
  return (
    `<p class="muted">Read at ${isoTime(options.now)}. Lag comes from each receiver's hub-lag monitor ` +
    '(every <code>hub_lag_interval</code>); the ownership map is read from the checkpoint store on every load. ' +
    'Reload, or add <code>?refresh=10</code> to reload every 10 s.</p>' +
    sections.join('\n')
  );
}

async function readOwnership(r: EventHubzReceiver, options: EventHubzOptions): Promise<Ownership | undefined> {
  const read = r.recorder.receiver.fleetOwnership;
  if (!read) return undefined;
  try {
    const signal = AbortSignal.timeout(options.ownershipTimeoutMs);
    const list = await Promise.race([
      read.call(r.recorder.receiver),
      new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
    ]);
    return { list };
  } catch (error) {
    return { error: redactError(error) };
  }
}

function section(r: EventHubzReceiver, ownership: Ownership | undefined, now: number): string {
  const rec = r.recorder.receiver;
  const stats = safe(() => rec.stats());
  const lag = new Map((safe(() => rec.hubLag?.()) ?? []).map((l) => [l.partitionId, l]));
  const blobs = new Map(ownership && 'list' in ownership ? ownership.list.map((o) => [o.partitionId, o]) : []);
  const owned = new Map((stats?.partitions ?? []).map((p) => [p.partitionId, p]));
  const me = safe(() => rec.ownerId?.());
  const ids = sortPartitionIds(new Set([...lag.keys(), ...blobs.keys(), ...owned.keys()]));
  const ownerOf = (id: string) => owner(blobs.get(id), lag.get(id), owned.has(id) ? me : undefined);
  const cells = ids.map((id) => ({ partitionId: id, owner: ownerOf(id) }));
  const colours = ownerColours(cells);
  const rows = ids.map((id) =>
    row(id, ownerOf(id), colours, {
      me,
      blob: blobs.get(id),
      lag: lag.get(id),
      own: owned.get(id),
      r,
      now,
      leases: ownership !== undefined && 'list' in ownership && ownership.list.length > 0,
    }),
  );
  const legend = [...colours]
    .map(
      ([o, c]) =>
        `<span class="swatch" style="background:${c}"></span>${esc(o)}` +
        `${o === me ? ' <span class="muted">(this instance)</span>' : ''}`,
    )
    .join(' &nbsp; ');
  const ownershipNote =
    ownership === undefined
      ? '<p class="muted">This receiver does not expose the ownership blobs.</p>'
      : 'error' in ownership
        ? `<p class="bad">Ownership could not be read from the checkpoint store: ${esc(ownership.error)}</p>`
        : ownership.list.length === 0
          ? '<p class="muted">No ownership blobs: static ownership (<code>partition</code> set, or no ' +
            '<code>blob_checkpoint_store</code>); owners below come from this instance.</p>'
          : '';
  const noLag =
    lag.size === 0
      ? '<p class="warn">No hub-wide lag yet: the first refresh has not finished, or ' +
        '<code>hub_lag_interval</code> is 0.</p>'
      : '';
  return `<section class="receiver" data-receiver="${esc(r.id)}">
<h2>${esc(r.id)}</h2>
${tiles(stats, ids.length, owned.size, colours.size, [...lag.values()], r.recorder, me)}
<h3>Ownership map</h3>
${ownershipNote}${ids.length > 0 ? ownershipMap(cells, colours) : ''}
<p>${legend || '<span class="muted">no partition is owned right now</span>'}</p>
<h3>Partitions</h3>
<p class="muted">Charts: lag in events (blue area) and in time (orange, dashed), each scaled to its own maximum
(at least 10 events, 10 s). Lag time marked ≥ is a lower bound (another instance reads the partition).</p>
${noLag}${table(
  [
    'Partition',
    'Owner',
    'Epoch',
    'Lease',
    'Checkpoint (age)',
    'Last enqueued',
    'Lag (events)',
    'Lag (time)',
    'Retention headroom',
    'Lag, last 15 min',
  ],
  rows,
  (i) => `data-partition="${esc(ids[i])}" data-owner="${esc(ownerOf(ids[i]!))}"`,
)}
<h3>Last errors</h3>
${errors(r.recorder)}
</section>`;
}

/** The owner: a held lease's `ownerid` first (read now), then the lag monitor's, then this instance's own. */
function owner(
  blob: PartitionOwnershipInfo | undefined,
  lag: HubPartitionLag | undefined,
  mine: string | undefined,
): string {
  if (blob) return blob.leaseState === 'leased' || blob.leaseState === 'breaking' ? (blob.ownerId ?? '') : '';
  return lag?.owner || mine || '';
}

interface RowInput {
  readonly me: string | undefined;
  readonly blob?: PartitionOwnershipInfo;
  readonly lag?: HubPartitionLag;
  readonly own?: PartitionStats;
  readonly r: EventHubzReceiver;
  readonly now: number;
  readonly leases: boolean;
}

function row(id: string, who: string, colours: ReadonlyMap<string, string>, x: RowInput): unknown[] {
  const history = x.r.recorder.history(id);
  const last = history[history.length - 1];
  const lagSeconds = x.own?.lagSeconds ?? last?.lagSeconds;
  const estimated = x.own === undefined && last?.estimated === true;
  const ownerCell =
    who === ''
      ? raw('<span class="muted">free</span>')
      : raw(
          `<span class="swatch" style="background:${colours.get(who)}"></span>${esc(who)}` +
            `${who === x.me ? ' <span class="muted">(this instance)</span>' : ''}`,
        );
  const lease = x.blob ? x.blob.leaseState : x.leases ? 'no blob' : 'static';
  const lagCell = lagSeconds === undefined ? '—' : `${estimated ? '≥ ' : ''}${duration(lagSeconds)}`;
  const stale = x.lag?.stale ? raw(' <span class="warn" title="the last refresh failed">stale</span>') : '';
  return [
    id,
    ownerCell,
    x.blob?.epoch ?? '—',
    raw(x.blob && x.blob.leaseState !== 'leased' ? `<span class="warn">${esc(lease)}</span>` : esc(lease)),
    raw(`${checkpoint(x.lag)}${stale ? stale.html : ''}${backfilling(x.own)}`),
    x.lag ? (x.lag.lastEnqueuedSequenceNumber < 0 ? 'empty' : count(x.lag.lastEnqueuedSequenceNumber)) : '—',
    x.lag?.lagEvents === undefined ? (x.lag ? 'no checkpoint' : '—') : count(x.lag.lagEvents),
    lagCell,
    raw(headroom(lagSeconds, x.r.retentionMs)),
    raw(lagChart(history, x.now, `partition ${id}`)),
  ];
}

/** A partition reading expired events from Capture: how many are left of which range. */
function backfilling(own: PartitionStats | undefined): string {
  const b = own?.backfill;
  if (!b) return '';
  const title = `sequence numbers ${b.fromSequenceNumber} to ${b.toSequenceNumber}`;
  return (
    ` <span class="warn" title="${esc(title)}">backfilling from Capture: ${esc(count(b.remainingEvents))} ` +
    `left</span>`
  );
}

function checkpoint(lag: HubPartitionLag | undefined): string {
  if (lag?.checkpointSequenceNumber === undefined) return lag ? 'none' : '—';
  const age =
    lag.checkpointAgeSeconds === undefined ? '' : ` <span class="muted">(${duration(lag.checkpointAgeSeconds)})</span>`;
  return `${count(lag.checkpointSequenceNumber)}${age}`;
}

/** Retention minus time lag, with the share of the retention used; red from 80 %. */
function headroom(lagSeconds: number | undefined, retentionMs: number | undefined): string {
  if (retentionMs === undefined) return '<span class="muted">set <code>retention</code></span>';
  if (lagSeconds === undefined) return '—';
  const ratio = lagSeconds / (retentionMs / 1000);
  const text = `${duration(retentionMs / 1000 - lagSeconds)} (${Math.round(ratio * 100)} % used)`;
  return `<span class="${ratio >= 0.8 ? 'bad' : ratio >= 0.5 ? 'warn' : 'ok'}">${esc(text)}</span>`;
}

function tiles(
  stats: ReceiverStats | undefined,
  partitions: number,
  owned: number,
  owners: number,
  lag: readonly HubPartitionLag[],
  recorder: FleetRecorder,
  me: string | undefined,
): string {
  const c = stats?.counters;
  const totalLag = lag.reduce((sum, l) => sum + (l.lagEvents ?? 0), 0);
  const maxLagS = Math.max(0, ...lag.map((l) => recorder.history(l.partitionId).at(-1)?.lagSeconds ?? 0));
  const tile = (label: string, value: string, cls = '') =>
    `<div class="tile"><span class="muted">${esc(label)}</span><b class="${cls}">${esc(value)}</b></div>`;
  const bad = (n: number | undefined) => (n ? 'bad' : '');
  return (
    `<p class="muted">This instance: <code>${esc(me ?? 'not started')}</code></p><div class="tiles">` +
    [
      tile('partitions', count(partitions)),
      tile('owned here', count(owned)),
      tile('owners in fleet', count(owners)),
      tile('hub lag (events)', count(totalLag)),
      tile('max lag (time)', duration(maxLagS)),
      tile('events received', count(c?.eventsReceived)),
      tile('decode failures', count(c?.eventsFailedDecode), c?.eventsFailedDecode ? 'warn' : ''),
      tile('dead-lettered', count(c?.eventsDeadLettered), bad(c?.eventsDeadLettered)),
      tile('dropped', count(c?.eventsDropped), bad(c?.eventsDropped)),
      tile('lost to retention', count(c?.eventsLostToRetention), bad(c?.eventsLostToRetention)),
      ...(c?.eventsBackfilled || c?.eventsMissingFromCapture
        ? [
            tile('backfilled from Capture', count(c.eventsBackfilled)),
            tile('missing from Capture', count(c.eventsMissingFromCapture), bad(c.eventsMissingFromCapture)),
          ]
        : []),
      tile('checkpoint failures', count(c?.checkpointFailures), bad(c?.checkpointFailures)),
    ].join('') +
    '</div>'
  );
}

function errors(recorder: FleetRecorder): string {
  const list = recorder.errors();
  if (list.length === 0) return '<p class="ok">No errors since start.</p>';
  return table(
    ['Time', 'Event', 'Partition', 'Message'],
    list.map((e) => [
      isoTime(e.at),
      e.count > 1 ? `${e.type} ×${e.count}` : e.type,
      e.partitionId ?? '—',
      raw(`<span class="wrap">${esc(e.message)}</span>`),
    ]),
  );
}

function safe<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
