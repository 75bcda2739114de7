import { redact } from '../../component/redact.ts';
import type { AzureEventHubReceiver } from '../../receiver/receiver.ts';
import type { HubPartitionLag, ReceiverStatus } from '../../receiver/receiver-status.ts';

/** How far back the lag charts reach. 15 minutes. */
export const LAG_HISTORY_MS = 15 * 60_000;
/** Default time between two looks at a receiver's hub lag (no I/O: it reads the monitor's last values). 5000 ms. */
export const DEFAULT_SAMPLE_INTERVAL_MS = 5_000;
/** Errors kept per receiver for the page, newest first. */
export const LAST_ERRORS_KEPT = 20;
/** Samples kept per partition at most: the lag monitor refreshes at most once a second (15 min = 900). */
const MAX_SAMPLES = 1_000;

/** One reading of a partition's hub-wide lag, as the chart draws it. */
export interface LagSample {
  /** When the lag monitor read these values, ms since the epoch. */
  readonly at: number;
  readonly lagEvents?: number;
  readonly lagSeconds?: number;
  /** True when `lagSeconds` is the lower bound estimated from history (another instance owns the partition). */
  readonly estimated: boolean;
  readonly lastEnqueuedSequenceNumber: number;
  readonly lastEnqueuedTime?: number;
}

/** A status event worth showing an operator, with its text redacted. */
export interface RecordedError {
  readonly at: number;
  readonly type: ReceiverStatus['type'];
  readonly partitionId?: string;
  readonly message: string;
  /** How many times in a row the same event repeated (same type, partition and message). */
  readonly count: number;
}

/** What zpages reads of a receiver: every method optional beyond status, so any receiver can be shown. */
export type ObservedReceiver = Pick<AzureEventHubReceiver, 'stats' | 'ownedPartitions' | 'onStatus'> &
  Partial<Pick<AzureEventHubReceiver, 'hubLag' | 'ownerId' | 'fleetOwnership'>>;

/** Keeps, per receiver, the last 15 minutes of every partition's lag and the last errors, in memory. */
export class FleetRecorder {
  readonly receiver: ObservedReceiver;
  readonly #now: () => number;
  readonly #samples = new Map<string, LagSample[]>();
  readonly #errors: RecordedError[] = [];
  readonly #unsubscribe: () => void;

  constructor(receiver: ObservedReceiver, now: () => number = Date.now) {
    this.receiver = receiver;
    this.#now = now;
    this.#unsubscribe = receiver.onStatus((s) => this.#onStatus(s));
  }

  /** Records the lag monitor's values where they changed since the last look; drops samples past 15 minutes. */
  sample(): void {
    const now = this.#now();
    const owned = new Map((safe(() => this.receiver.stats().partitions) ?? []).map((p) => [p.partitionId, p]));
    for (const row of safe(() => this.receiver.hubLag?.()) ?? []) {
      const list = this.#samples.get(row.partitionId) ?? [];
      this.#samples.set(row.partitionId, list);
      const at = row.refreshedAt.getTime();
      if (list.length > 0 && list[list.length - 1]!.at >= at) continue;
      const mine = owned.get(row.partitionId);
      // This instance reads it: the pump's own time lag is exact. Otherwise it is estimated from history.
      const exact = mine !== undefined;
      list.push({
        at,
        lagEvents: row.lagEvents,
        lagSeconds: exact ? mine.lagSeconds : estimateLagSeconds(list, row),
        estimated: !exact && row.lagEvents !== 0 && row.lagEvents !== undefined,
        lastEnqueuedSequenceNumber: row.lastEnqueuedSequenceNumber,
        lastEnqueuedTime: row.lastEnqueuedTime?.getTime(),
      });
    }
    for (const [id, list] of this.#samples) {
      const keepFrom = list.findIndex((s) => s.at >= now - LAG_HISTORY_MS);
      list.splice(0, keepFrom < 0 ? list.length : Math.max(keepFrom, list.length - MAX_SAMPLES));
      if (list.length === 0) this.#samples.delete(id);
    }
  }

  /** The samples of a partition, oldest first. */
  history(partitionId: string): readonly LagSample[] {
    return this.#samples.get(partitionId) ?? [];
  }

  /** The last errors, newest first. */
  errors(): readonly RecordedError[] {
    return this.#errors;
  }

  stop(): void {
    this.#unsubscribe();
  }

  #onStatus(s: ReceiverStatus): void {
    const error = errorOf(s);
    if (error === undefined) return;
    const partitionId = 'partitionId' in s ? s.partitionId : undefined;
    const message = redact(error);
    const last = this.#errors[0];
    if (last && last.type === s.type && last.partitionId === partitionId && last.message === message) {
      this.#errors[0] = { ...last, at: this.#now(), count: last.count + 1 };
      return;
    }
    this.#errors.unshift({ at: this.#now(), type: s.type, partitionId, message, count: 1 });
    this.#errors.length = Math.min(this.#errors.length, LAST_ERRORS_KEPT);
  }
}

/** `12 records`, or `12 records, 40 metric points, 3 spans` when the batch held other signals. */
function exportedItems(s: { records: number; metricPoints?: number; spans?: number }): string {
  const parts = [`${s.records} records`];
  if (s.metricPoints) parts.push(`${s.metricPoints} metric points`);
  if (s.spans) parts.push(`${s.spans} spans`);
  return parts.join(', ');
}

/** The text of a status event an operator should see, or undefined for the routine ones. */
function errorOf(s: ReceiverStatus): string | undefined {
  switch (s.type) {
    case 'hubUnreachable':
    case 'partitionStartFailed':
    case 'checkpointFailed':
    case 'backendDisconnected':
    case 'storageFailing':
      return s.error.message;
    case 'exportFailed':
      return `${s.permanent ? 'permanent' : 'retryable'} export failure of ${exportedItems(s)}: ${s.error.message}`;
    case 'deadLettered':
      return `${s.events} events dead-lettered: ${s.error.message}`;
    case 'retentionGap':
      return (
        `${s.eventsLost} events expired before they were read (checkpoint ${s.checkpointSequenceNumber}, ` +
        `first retained ${s.firstRetainedSequenceNumber})`
      );
    case 'captureGap':
      return (
        `${s.events} expired events are not in Capture either: sequence numbers ${s.fromSequenceNumber} to ` +
        `${s.toSequenceNumber} lost`
      );
    case 'partitionClosed':
      return s.error ? `closed (${s.reason}): ${s.error.message}` : undefined;
    case 'partitionState':
      return s.state === 'retrying' && s.error ? `retrying (${s.cause ?? 'reader'}): ${s.error.message}` : undefined;
    default:
      return undefined;
  }
}

/**
 * Lower bound of a partition's time lag when only the hub-wide values are known (another instance reads it):
 * the oldest unread event (checkpoint + 1) was enqueued no later than the newest event of the first sample
 * that already held it, so lag ≥ now − that event's time. 0 with no backlog; undefined without a checkpoint.
 */
export function estimateLagSeconds(earlier: readonly LagSample[], row: HubPartitionLag): number | undefined {
  if (row.lagEvents === 0) return 0;
  if (row.lagEvents === undefined || row.checkpointSequenceNumber === undefined) return undefined;
  const now = row.refreshedAt.getTime();
  const cp = row.checkpointSequenceNumber;
  const first = earlier.find((s) => s.lastEnqueuedSequenceNumber > cp && s.lastEnqueuedTime !== undefined);
  const enqueued = first?.lastEnqueuedTime ?? row.lastEnqueuedTime?.getTime();
  return enqueued === undefined ? undefined : Math.max(0, (now - enqueued) / 1000);
}

function safe<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
