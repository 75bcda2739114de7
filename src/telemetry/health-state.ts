import type { ReceiverStatus } from '../receiver/receiver-status.ts';
import { failureHints } from '../component/failure-hints.ts';
import type { ExportAttempt } from '../pipeline/retry.ts';

/** How long a transient failure must last before a receiver is reported unhealthy. 30 000 ms. */
export const DEFAULT_UNHEALTHY_AFTER_MS = 30_000;
/** How long a partition may retry (a failing reader, a refused batch) before the receiver is degraded. 30 000 ms. */
export const DEFAULT_DEGRADED_AFTER_MS = 30_000;

export type HealthStatus = 'starting' | 'ready' | 'degraded' | 'unhealthy' | 'stopping';

/** A partition that is not simply reading, as the health report names it. */
export interface PartitionHealth {
  /** `waiting`: its batch is with the pipeline, not delivered yet (`seconds` since the hand-over). */
  readonly state: 'retrying' | 'startFailing' | 'waiting';
  readonly cause?: 'reader' | 'export';
  readonly permanent: boolean;
  readonly seconds: number;
  readonly error?: string;
  readonly configKey?: string;
  /** The exporter whose attempts fail, for a waiting partition (its `error` is that exporter's last one). */
  readonly exporter?: string;
}

export interface ReceiverHealth {
  readonly status: HealthStatus;
  /**
   * Why it is not ready: `hubNotReached`, `noPartitionsOwned`, `hubUnreachable`, `checkpointFailing`,
   * `storageFailing`, `misconfigured` (a permanent error: fix `configKey`), `partitionRetrying`,
   * `memoryPaused` (reading paused above `memory.limit_mib` for longer than the degraded delay),
   * `exportStalled` (a batch handed to the pipeline is not delivered after the degraded delay: `exporter`
   * names the exporter whose attempts fail, when one does); on a ready receiver, `backfilling` (partitions
   * read expired events from Capture; see `backfilling`).
   */
  readonly reason?: string;
  /** The failing exporter, with `exportStalled`. */
  readonly exporter?: string;
  /** The last error message of the failure; the health server redacts it before answering. */
  readonly error?: string;
  /** The config key to fix, when the failure names one. */
  readonly configKey?: string;
  readonly ownedPartitions: number;
  /** Partitions retrying or failing to start, by id (only when there are some). */
  readonly partitions?: Readonly<Record<string, PartitionHealth>>;
  /**
   * Partitions reading expired events from Capture (`capture`), with the range and since when (seconds);
   * only while there are some. A backfilling receiver is `ready` with reason `backfilling`: it works.
   */
  readonly backfilling?: Readonly<
    Record<string, { readonly fromSequenceNumber: number; readonly toSequenceNumber: number; readonly seconds: number }>
  >;
}

export interface HealthReport {
  readonly status: HealthStatus;
  readonly receivers: Readonly<Record<string, ReceiverHealth>>;
}

interface Failure {
  since: number;
  error: string | undefined;
  permanent: boolean;
  configKey: string | undefined;
  /** The error's stable code, when it has one (e.g. `InvalidCheckpoint`). */
  code?: string;
}

interface PartitionTrack extends Failure {
  state: 'retrying' | 'startFailing' | 'waiting';
  cause?: 'reader' | 'export';
}

/** An exporter whose last attempt failed: since its first failure in a row. */
interface ExporterFailure {
  since: number;
  error: string;
  attempts: number;
}

class ReceiverTracker {
  hubReached = false;
  standby = false;
  everReady = false;
  readonly owned = new Set<string>();
  hub: Failure | undefined;
  checkpoint: Failure | undefined;
  storage: Failure | undefined;
  /** Reading paused by `memory.limit_mib` (every partition waits before its next receive). */
  memory: Failure | undefined;
  readonly partitions = new Map<string, PartitionTrack>();
  readonly backfilling = new Map<string, { fromSequenceNumber: number; toSequenceNumber: number; since: number }>();
}

function failureOf(error: Error, since: number, previous?: Failure): Failure {
  const { permanent, configKey } = failureHints(error);
  const code = (error as { code?: unknown }).code;
  return {
    since: previous?.since ?? since,
    error: error.message,
    permanent,
    configKey,
    ...(typeof code === 'string' ? { code } : {}),
  };
}

/**
 * The health state machine, fed with receiver status events and read on every probe. A receiver is
 * `starting` (not ready) until it has reached the hub and owns partitions or has confirmed standby (a
 * fleet larger than the partition count); then `ready`, and it stays ready through rebalancing. It is
 * `unhealthy` at once when a failure is permanent (a misconfiguration: the report names the key), and
 * after `unhealthyAfterMs` when the hub, the checkpoint writes or the checkpoint store keep failing. It is
 * `degraded` while a partition it holds has been retrying (its reader failing, or its batch refused by the
 * pipeline) or waiting for its batch to be delivered (an exporter retrying, a stage holding it) for longer than
 * `degradedAfterMs`; a waiting partition names the exporter whose attempts fail (exportAttempt). Every status but
 * `ready` answers non-200. Time is only read
 * at evaluation, so no timers are involved.
 */
export class HealthState {
  readonly #receivers = new Map<string, ReceiverTracker>();
  readonly #exporters = new Map<string, ExporterFailure>();
  readonly #unhealthyAfterMs: number;
  readonly #degradedAfterMs: number;
  readonly #now: () => number;
  #stopping = false;

  constructor(options: { unhealthyAfterMs?: number; degradedAfterMs?: number; now?: () => number } = {}) {
    this.#unhealthyAfterMs = options.unhealthyAfterMs ?? DEFAULT_UNHEALTHY_AFTER_MS;
    this.#degradedAfterMs = options.degradedAfterMs ?? DEFAULT_DEGRADED_AFTER_MS;
    this.#now = options.now ?? Date.now;
  }

  /** Registers a receiver: the service is not ready until every registered receiver is. */
  register(receiverId: string): void {
    if (!this.#receivers.has(receiverId)) this.#receivers.set(receiverId, new ReceiverTracker());
  }

  /** Feeds how an attempt of exporter `exporterId` ended: a failing exporter is named by waiting partitions. */
  exportAttempt(exporterId: string, attempt: ExportAttempt): void {
    if (attempt.ok) {
      this.#exporters.delete(exporterId);
      return;
    }
    const previous = this.#exporters.get(exporterId);
    const error = attempt.error instanceof Error ? attempt.error.message : String(attempt.error);
    this.#exporters.set(exporterId, {
      since: previous?.since ?? this.#now(),
      error,
      attempts: (previous?.attempts ?? 0) + 1,
    });
  }

  /** Feeds one status event of `receiverId`. */
  update(receiverId: string, status: ReceiverStatus): void {
    this.register(receiverId);
    const t = this.#receivers.get(receiverId)!;
    const now = this.#now();
    switch (status.type) {
      case 'hubReached':
        t.hubReached = true;
        t.hub = undefined;
        break;
      case 'hubUnreachable':
        t.hub = failureOf(status.error, now, t.hub);
        break;
      case 'partitionOpened':
        t.owned.add(status.partitionId);
        t.partitions.delete(status.partitionId);
        t.standby = false;
        // Reading a partition proves the hub is reachable.
        t.hubReached = true;
        t.hub = undefined;
        break;
      case 'partitionClosed':
        t.owned.delete(status.partitionId);
        t.partitions.delete(status.partitionId);
        t.backfilling.delete(status.partitionId);
        break;
      case 'backfillStarted':
        t.backfilling.set(status.partitionId, {
          fromSequenceNumber: status.fromSequenceNumber,
          toSequenceNumber: status.toSequenceNumber,
          since: now,
        });
        break;
      case 'backfillFinished':
        t.backfilling.delete(status.partitionId);
        break;
      case 'partitionState':
        if (status.state === 'waiting') {
          t.partitions.set(status.partitionId, {
            since: status.since,
            error: undefined,
            permanent: false,
            configKey: undefined,
            state: 'waiting',
            cause: 'export',
          });
        } else if (status.state === 'retrying') {
          const previous = t.partitions.get(status.partitionId);
          const base = status.error
            ? failureOf(status.error, status.since)
            : { since: status.since, error: undefined, permanent: false, configKey: undefined };
          t.partitions.set(status.partitionId, {
            ...base,
            since: previous?.state === 'retrying' && previous.cause === status.cause ? previous.since : status.since,
            permanent: status.permanent ?? base.permanent,
            configKey: status.configKey ?? base.configKey,
            state: 'retrying',
            cause: status.cause,
          });
        } else {
          t.partitions.delete(status.partitionId);
        }
        break;
      case 'partitionStartFailed': {
        const previous = t.partitions.get(status.partitionId);
        t.partitions.set(status.partitionId, {
          ...failureOf(status.error, now, previous?.state === 'startFailing' ? previous : undefined),
          state: 'startFailing',
        });
        break;
      }
      case 'standby':
        t.standby = true;
        break;
      case 'checkpointWritten':
        t.checkpoint = undefined;
        break;
      case 'checkpointFailed':
        t.checkpoint = failureOf(status.error, now, t.checkpoint);
        break;
      case 'storageFailing':
        t.storage = failureOf(status.error, now, t.storage);
        break;
      case 'storageRecovered':
        t.storage = undefined;
        break;
      case 'memoryPaused': {
        const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
        t.memory = {
          since: t.memory?.since ?? now,
          error:
            `reading paused: memory in use ${mib(status.usageBytes)} MiB is above memory.limit_mib ` +
            `${mib(status.limitBytes)}`,
          permanent: false,
          configKey: 'memory.limit_mib',
        };
        break;
      }
      case 'memoryResumed':
        t.memory = undefined;
        break;
      default:
        break;
    }
    // Latched here, not at evaluation, so a partition that was owned between two probes still counts.
    if (t.hubReached && (t.owned.size > 0 || t.standby)) t.everReady = true;
  }

  /** Marks the whole service as shutting down: every probe answers 503 from now on. */
  stopping(): void {
    this.#stopping = true;
  }

  report(): HealthReport {
    const receivers: Record<string, ReceiverHealth> = {};
    const rank: Record<HealthStatus, number> = { ready: 0, starting: 1, degraded: 2, unhealthy: 3, stopping: 4 };
    let overall: HealthStatus = 'ready';
    for (const [id, t] of this.#receivers) {
      const h = this.#evaluate(t);
      receivers[id] = h;
      if (rank[h.status] > rank[overall]) overall = h.status;
    }
    if (this.#stopping) overall = 'stopping';
    return { status: overall, receivers };
  }

  #evaluate(t: ReceiverTracker): ReceiverHealth {
    const now = this.#now();
    const ownedPartitions = t.owned.size;
    const partitions = this.#partitions(t, now);
    const withPartitions = partitions ? { partitions } : {};
    const failed = (reason: string, f: Failure, status: HealthStatus = 'unhealthy'): ReceiverHealth => ({
      status,
      reason,
      ...(f.error ? { error: f.error } : {}),
      ...(f.configKey ? { configKey: f.configKey } : {}),
      ownedPartitions,
      ...withPartitions,
    });
    // A permanent failure will not heal by waiting: report it at once, naming the key to fix.
    // A checkpoint beyond the partition's end is not a config typo but needs an operator all the same.
    for (const f of [t.hub, t.storage, ...t.partitions.values()]) {
      if (f?.permanent) return failed(f.code === 'InvalidCheckpoint' ? 'invalidCheckpoint' : 'misconfigured', f);
    }
    const lasting = (f: Failure | undefined): f is Failure =>
      f !== undefined && now - f.since >= this.#unhealthyAfterMs;
    if (lasting(t.hub)) return failed('hubUnreachable', t.hub);
    if (lasting(t.storage)) return failed('storageFailing', t.storage);
    if (lasting(t.checkpoint)) return failed('checkpointFailing', t.checkpoint);
    const stuck = [...t.partitions.values()].find((p) => now - p.since >= this.#degradedAfterMs);
    if (stuck?.state === 'waiting') {
      const exporter = this.#failingExporter();
      const error = exporter
        ? `${exporter[0]}: ${exporter[1].attempts} failed attempts in a row: ${exporter[1].error}`
        : `a batch handed to the pipeline ${Math.round((now - stuck.since) / 1000)}s ago is not delivered yet`;
      return {
        ...failed('exportStalled', { ...stuck, error }, 'degraded'),
        ...(exporter ? { exporter: exporter[0] } : {}),
      };
    }
    if (stuck) return failed('partitionRetrying', stuck, 'degraded');
    // Paused partitions are leased and unread: brief pauses are the limit working, a lasting one is not.
    if (t.memory && now - t.memory.since >= this.#degradedAfterMs) return failed('memoryPaused', t.memory, 'degraded');
    if (!t.everReady) {
      if (!t.hubReached)
        return {
          status: 'starting',
          reason: t.hub !== undefined ? 'hubUnreachable' : 'hubNotReached',
          ownedPartitions,
          ...withPartitions,
        };
      return { status: 'starting', reason: 'noPartitionsOwned', ownedPartitions, ...withPartitions };
    }
    if (t.backfilling.size > 0)
      return {
        status: 'ready',
        reason: 'backfilling',
        ownedPartitions,
        ...withPartitions,
        backfilling: this.#backfilling(t, now),
      };
    return { status: 'ready', ownedPartitions, ...withPartitions };
  }

  /** The exporter failing longest, if any exporter's last attempt failed. */
  #failingExporter(): [string, ExporterFailure] | undefined {
    let oldest: [string, ExporterFailure] | undefined;
    for (const entry of this.#exporters) if (!oldest || entry[1].since < oldest[1].since) oldest = entry;
    return oldest;
  }

  #backfilling(t: ReceiverTracker, now: number): NonNullable<ReceiverHealth['backfilling']> {
    const out: Record<string, { fromSequenceNumber: number; toSequenceNumber: number; seconds: number }> = {};
    for (const [pid, b] of t.backfilling) {
      out[pid] = {
        fromSequenceNumber: b.fromSequenceNumber,
        toSequenceNumber: b.toSequenceNumber,
        seconds: Math.round((now - b.since) / 1000),
      };
    }
    return out;
  }

  #partitions(t: ReceiverTracker, now: number): Record<string, PartitionHealth> | undefined {
    if (t.partitions.size === 0) return undefined;
    const out: Record<string, PartitionHealth> = {};
    const exporter = this.#failingExporter();
    for (const [pid, p] of [...t.partitions].sort(([a], [b]) => Number(a) - Number(b) || a.localeCompare(b))) {
      if (p.state === 'waiting') {
        out[pid] = {
          state: 'waiting',
          cause: 'export',
          permanent: false,
          seconds: Math.round((now - p.since) / 1000),
          ...(exporter ? { exporter: exporter[0], error: exporter[1].error } : {}),
        };
        continue;
      }
      out[pid] = {
        state: p.state,
        ...(p.cause ? { cause: p.cause } : {}),
        permanent: p.permanent,
        seconds: Math.round((now - p.since) / 1000),
        ...(p.error ? { error: p.error } : {}),
        ...(p.configKey ? { configKey: p.configKey } : {}),
      };
    }
    return out;
  }
}
