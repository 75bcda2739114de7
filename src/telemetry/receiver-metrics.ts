import type { Attributes, Meter, ObservableResult } from '@opentelemetry/api';
import type { AzureEventHubReceiver } from '../receiver/receiver.ts';
import type { HubPartitionLag, ReceiverCounters, ReceiverStats, PartitionStats } from '../receiver/receiver-status.ts';

/** Prefix of the receiver-specific metrics; each signal's accepted/refused counters use the collector's names. */
export const RECEIVER_METRIC_PREFIX = 'otelcol_receiver_azureeventhub_';
/** `transport` attribute of the collector's receiver metrics: events arrive over AMQP in both backends. */
export const RECEIVER_TRANSPORT = 'amqp';
/** Buckets of the export latency histogram, in seconds. */
export const EXPORT_DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

// `hubLag` is optional: a receiver without a hub-wide lag monitor reports only its own partitions.
type Observed = Pick<AzureEventHubReceiver, 'stats' | 'ownedPartitions' | 'onStatus' | 'hubLag'>;

interface Entry {
  readonly attributes: Attributes;
  readonly receiver: Observed;
}

/** Cumulative counters read from `receiver.stats().counters` at scrape time: name, counter key, description, unit. */
const COUNTERS: readonly (readonly [string, keyof ReceiverCounters, string, string])[] = [
  ['otelcol_receiver_accepted_log_records', 'recordsAccepted', 'Log records the pipeline accepted.', '{records}'],
  [
    'otelcol_receiver_refused_log_records',
    'recordsRefused',
    'Log records the pipeline refused (dead-lettered or dropped).',
    '{records}',
  ],
  [
    'otelcol_receiver_accepted_metric_points',
    'metricPointsAccepted',
    'Metric points the pipeline accepted.',
    '{datapoints}',
  ],
  [
    'otelcol_receiver_refused_metric_points',
    'metricPointsRefused',
    'Metric points the pipeline refused (dead-lettered or dropped).',
    '{datapoints}',
  ],
  ['otelcol_receiver_accepted_spans', 'spansAccepted', 'Spans the pipeline accepted.', '{spans}'],
  [
    'otelcol_receiver_refused_spans',
    'spansRefused',
    'Spans the pipeline refused (dead-lettered or dropped).',
    '{spans}',
  ],
  [`${RECEIVER_METRIC_PREFIX}events_received`, 'eventsReceived', 'Events received from the hub.', '{events}'],
  [`${RECEIVER_METRIC_PREFIX}received_bytes`, 'bytesReceived', 'Event body bytes received from the hub.', 'By'],
  [`${RECEIVER_METRIC_PREFIX}records_decoded`, 'recordsDecoded', 'Log records decoded from events.', '{records}'],
  [
    `${RECEIVER_METRIC_PREFIX}metric_points_decoded`,
    'metricPointsDecoded',
    'Metric points decoded from events (with a metrics pipeline).',
    '{datapoints}',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}spans_decoded`,
    'spansDecoded',
    'Spans decoded from events (with a traces pipeline).',
    '{spans}',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}items_without_pipeline`,
    'itemsWithoutPipeline',
    'Decoded items of a signal no pipeline of the receiver takes: counted and logged, not exported.',
    '{items}',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}events_decode_failed`,
    'eventsFailedDecode',
    'Events that did not decode (exported raw with the reason).',
    '{events}',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}events_dead_lettered`,
    'eventsDeadLettered',
    'Events written to the dead-letter store.',
    '{events}',
  ],
  [`${RECEIVER_METRIC_PREFIX}checkpoint_writes`, 'checkpointWrites', 'Checkpoints written.', '{writes}'],
  [
    `${RECEIVER_METRIC_PREFIX}checkpoint_write_failures`,
    'checkpointFailures',
    'Checkpoint writes that failed.',
    '{writes}',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}backend_reconnects`,
    'backendReconnects',
    'Reconnections to the hub after a disconnect.',
    '{reconnects}',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}events_lost_to_retention`,
    'eventsLostToRetention',
    'Events that expired from the hub before they were read.',
    '{events}',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}events_backfilled`,
    'eventsBackfilled',
    'Events read from Event Hubs Capture files because they had expired from the hub (capture).',
    '{events}',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}events_missing_from_capture`,
    'eventsMissingFromCapture',
    'Expired events that Capture did not hold either (deleted file, window not written); also lost to retention.',
    '{events}',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}events_dropped`,
    'eventsDropped',
    'Events of refused batches dropped because dead_letter.drop is set.',
    '{events}',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}export_holds`,
    'exportHolds',
    'Refused exports a partition held and retried (no dead-letter store: nothing dropped).',
    '{attempts}',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}invalid_checkpoints`,
    'invalidCheckpoints',
    'Partition starts that found a checkpoint beyond the last event of the partition (recreated hub, reused ' +
      'container).',
    '{checkpoints}',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}events_decoded_off_thread`,
    'eventsDecodedOffThread',
    'Events decoded and encoded on decode threads (decode_workers).',
    '{events}',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}decode_worker_fallbacks`,
    'eventsDecodeFallbacks',
    'Events a decode thread failed (it ended) and the pipeline thread decoded instead.',
    '{events}',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}claim_pauses`,
    'claimPauses',
    'Times new claims were paused because lease renewals were late (the leases held come first).',
    '{pauses}',
  ],
];

/**
 * Receiver-wide states read from `stats()`: name, kind, value (undefined: not reported for this receiver),
 * description, unit. Partitions that are leased but wait instead of reading must show, not only in health.
 */
type StateValue = (stats: ReceiverStats) => number | undefined;
const STATE_INSTRUMENTS: readonly (readonly [string, 'gauge' | 'counter', StateValue, string, string])[] = [
  [
    `${RECEIVER_METRIC_PREFIX}memory_paused`,
    'gauge',
    (s) => s.memory && (s.memory.paused ? 1 : 0),
    'memory.limit_mib: 1 while every partition of the receiver waits because memory is above the limit, else 0.',
    '1',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}memory_pauses`,
    'counter',
    (s) => s.memory?.pauses,
    'memory.limit_mib: times reading paused because memory stayed above the limit after a collection.',
    '{pauses}',
  ],
  [
    // Lease ownership: partitions this instance would claim wait while its renewals are late.
    `${RECEIVER_METRIC_PREFIX}claims_paused`,
    'gauge',
    (s) => (s.claimsPaused === undefined ? undefined : s.claimsPaused ? 1 : 0),
    'Lease ownership: 1 while no new partition is claimed because lease renewals are late, else 0.',
    '1',
  ],
];

/** Partition states of `partition_state`; every state of a partition is reported, 1 for the current one. */
const PARTITION_STATES = ['reading', 'retrying', 'waiting', 'released'] as const;

/** Per-partition gauges: name, stats key, description, unit. */
const PARTITION_GAUGES: readonly (readonly [string, keyof PartitionStats, string, string])[] = [
  [
    `${RECEIVER_METRIC_PREFIX}partition_lag_events`,
    'lagEvents',
    'Events enqueued in the partition and not yet exported.',
    '{events}',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}partition_lag_seconds`,
    'lagSeconds',
    'Age of the oldest unexported event: last enqueued time minus the last exported event time.',
    's',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}partition_retention_used_ratio`,
    'retentionUsedRatio',
    'Time lag over the configured retention; 1 means events are expiring unread.',
    '1',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}partition_backfill_remaining_events`,
    'backfillRemainingEvents',
    'capture: expired events of the partition still to read from Capture; reported only while it backfills.',
    '{events}',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}partition_checkpoint_age_seconds`,
    'checkpointAgeSeconds',
    'Seconds since the last checkpoint write of the partition.',
    's',
  ],
];

/**
 * Hub-wide per-partition gauges, from `receiver.hubLag()`: every partition of the hub, whoever owns it,
 * labelled with `owner` (the lease holder, or a live foreign owner such as an SDK processor; `''` when
 * nobody holds it). Name, value, description, unit.
 */
type HubValue = (p: HubPartitionLag, nowMs: number) => number | undefined;
const HUB_PARTITION_GAUGES: readonly (readonly [string, HubValue, string, string])[] = [
  [
    `${RECEIVER_METRIC_PREFIX}hub_partition_lag_events`,
    (p) => p.lagEvents,
    'Every partition of the hub, whoever owns it: events after its checkpoint (unexported or not yet checkpointed).',
    '{events}',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}hub_partition_checkpoint_age_seconds`,
    (p) => p.checkpointAgeSeconds,
    'Every partition of the hub, whoever owns it: seconds since its checkpoint was last written.',
    's',
  ],
  [
    `${RECEIVER_METRIC_PREFIX}hub_partition_refresh_age_seconds`,
    (p, nowMs) => Math.max(0, (nowMs - p.refreshedAt.getTime()) / 1000),
    'Seconds since the hub-wide values of the partition were last read; grows while the hub or storage fails.',
    's',
  ],
];

export interface ReceiverMetricsOptions {
  /** Clock in ms since the epoch, for ages computed at scrape time. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * The receiver's self-metrics on one Meter, for any number of receivers (`azure_event_hub/audit` and
 * `azure_event_hub/metrics` in one process): instruments are created once, every receiver is read in
 * the same callbacks and told apart by the `receiver` attribute. Counters and gauges come from
 * `stats()` at scrape time; the export latency histogram from `exported` status events.
 */
export class ReceiverMetrics {
  readonly #entries = new Set<Entry>();
  readonly #exportDuration;

  readonly #now: () => number;

  constructor(meter: Meter, options: ReceiverMetricsOptions = {}) {
    this.#now = options.now ?? Date.now;
    for (const [name, key, description, unit] of COUNTERS) {
      meter
        .createObservableCounter(name, { description, unit })
        .addCallback((result) => this.#observeCounter(result, key));
    }
    meter
      .createObservableGauge(`${RECEIVER_METRIC_PREFIX}owned_partitions`, {
        description: 'Partitions this instance reads now.',
        unit: '{partitions}',
      })
      .addCallback((result) => {
        for (const e of this.#entries) result.observe(e.receiver.ownedPartitions().length, e.attributes);
      });
    for (const [name, key, description, unit] of PARTITION_GAUGES) {
      meter
        .createObservableGauge(name, { description, unit })
        .addCallback((result) => this.#observePartitions(result, key));
    }
    meter
      .createObservableGauge(`${RECEIVER_METRIC_PREFIX}partition_state`, {
        description:
          'State of each partition this instance holds or handed back: 1 for the current state (reading, retrying, ' +
          'waiting, released), 0 for the others.',
        unit: '1',
      })
      .addCallback((result) => this.#observeStates(result));
    meter
      .createObservableCounter(`${RECEIVER_METRIC_PREFIX}partition_restarts`, {
        description:
          'Partition readers restarted, by reason: transient, permanent, stalled (reopened in place), ownershipLost, ' +
          'fenced, error (handed back), startFailed.',
        unit: '{restarts}',
      })
      .addCallback((result) => {
        for (const e of this.#entries) {
          for (const [reason, value] of Object.entries(safeStats(e.receiver)?.restarts ?? {}))
            result.observe(value, { ...e.attributes, reason });
        }
      });
    for (const [name, kind, read, description, unit] of STATE_INSTRUMENTS) {
      const instrument =
        kind === 'gauge'
          ? meter.createObservableGauge(name, { description, unit })
          : meter.createObservableCounter(name, { description, unit });
      instrument.addCallback((result) => {
        for (const e of this.#entries) {
          const stats = safeStats(e.receiver);
          const value = stats && read(stats);
          if (value !== undefined) result.observe(value, e.attributes);
        }
      });
    }
    for (const [name, value, description, unit] of HUB_PARTITION_GAUGES) {
      meter.createObservableGauge(name, { description, unit }).addCallback((result) => this.#observeHub(result, value));
    }
    this.#exportDuration = meter.createHistogram(`${RECEIVER_METRIC_PREFIX}export_duration_seconds`, {
      description: 'Time from handing a batch to the pipeline until it was accepted.',
      unit: 's',
      advice: { explicitBucketBoundaries: EXPORT_DURATION_BUCKETS_S },
    });
  }

  /** Starts reporting `receiver` under `receiverId`; returns the function that stops it. */
  add(receiverId: string, receiver: Observed, transport: string = RECEIVER_TRANSPORT): () => void {
    const entry: Entry = { attributes: { receiver: receiverId, transport }, receiver };
    this.#entries.add(entry);
    const unsubscribe = receiver.onStatus((status) => {
      if (status.type === 'exported') {
        this.#exportDuration.record(status.durationMs / 1000, { ...entry.attributes, partition: status.partitionId });
      }
    });
    return () => {
      unsubscribe();
      this.#entries.delete(entry);
    };
  }

  #observeCounter(result: ObservableResult, key: keyof ReceiverCounters): void {
    for (const e of this.#entries) {
      const value = safeStats(e.receiver)?.counters[key];
      if (typeof value === 'number') result.observe(value, e.attributes);
    }
  }

  #observeStates(result: ObservableResult): void {
    for (const e of this.#entries) {
      const stats = safeStats(e.receiver);
      if (!stats) continue;
      const current = [
        ...stats.partitions.map((p) => [p.partitionId, p.state] as const),
        ...(stats.released ?? []).map((r) => [r.partitionId, 'released'] as const),
      ];
      for (const [partition, state] of current) {
        for (const s of PARTITION_STATES) result.observe(s === state ? 1 : 0, { ...e.attributes, partition, state: s });
      }
    }
  }

  #observePartitions(result: ObservableResult, key: keyof PartitionStats): void {
    for (const e of this.#entries) {
      for (const p of safeStats(e.receiver)?.partitions ?? []) {
        const value = p[key];
        if (typeof value === 'number' && Number.isFinite(value))
          result.observe(value, { ...e.attributes, partition: p.partitionId });
      }
    }
  }

  #observeHub(result: ObservableResult, value: HubValue): void {
    const now = this.#now();
    for (const e of this.#entries) {
      for (const p of safeHubLag(e.receiver)) {
        const v = value(p, now);
        if (typeof v !== 'number' || !Number.isFinite(v)) continue;
        result.observe(v, { ...e.attributes, partition: p.partitionId, owner: p.owner });
      }
    }
  }
}

function safeHubLag(receiver: Observed): readonly HubPartitionLag[] {
  try {
    return receiver.hubLag?.() ?? [];
  } catch {
    return [];
  }
}

// A scrape must never fail because one receiver's stats threw (e.g. read during shutdown).
function safeStats(receiver: Observed) {
  try {
    return receiver.stats();
  } catch {
    return undefined;
  }
}
