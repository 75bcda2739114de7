import { DEFAULT_HUB_LAG_INTERVAL_MS } from '../../config/receiver-defaults.ts';
import type { HubClient, PartitionProperties } from '../../backends/consumer.ts';
import type { Checkpoint, CheckpointScope, CheckpointStore } from '../../ownership/checkpoint.ts';
import { sortPartitionIds } from '../../ownership/partition-order.ts';
import { raceAbort } from '../../component/abort.ts';
import { noopLogger, type Logger } from '../../component/logger.ts';
import { redactError } from '../../component/redact.ts';
import type { HubPartitionLag } from '../receiver-status.ts';

/** Default deadline of each request of a refresh (hub properties, partition properties, checkpoint, owners). */
export const DEFAULT_HUB_LAG_REQUEST_TIMEOUT_MS = 10_000;
/** Partitions read at once: bounds the burst of management calls on a hub with many partitions. */
const REFRESH_CONCURRENCY = 8;

/** Partition id → owner id of the partitions whose lease is held now; free partitions are absent. */
export type OwnerMap = ReadonlyMap<string, string>;
/** Reads the owners now; rejects (or is aborted by `signal`) when they cannot be read. */
export type ReadOwners = (signal: AbortSignal) => Promise<OwnerMap>;

export interface HubLagMonitorOptions {
  /** The hub: its partition ids and each partition's last enqueued event. */
  readonly hub: Pick<HubClient, 'getHubProperties' | 'getPartitionProperties'>;
  /** Where the fleet's checkpoints are, read for every partition (not only the ones this instance owns). */
  readonly store: Pick<CheckpointStore, 'read'>;
  /**
   * Reads every checkpoint at once (e.g. `BlobCheckpointStore.readAll`: one listing per refresh instead of
   * one read per partition). Absent: each partition's checkpoint is read on its own.
   */
  readonly readCheckpoints?: (signal: AbortSignal) => Promise<readonly Checkpoint[]>;
  readonly scope: CheckpointScope;
  /**
   * A partition's properties as this instance's own reader of it knows them, when it is owned here and its
   * reader heard from the hub within `maxAgeMs` (the last enqueued event rides on every delivery): used
   * instead of a management call. Undefined: ask the hub. A reader that stopped receiving goes stale and is
   * asked about like any other partition, so a stuck partition still shows its lag.
   */
  readonly localProperties?: (partitionId: string, maxAgeMs: number) => PartitionProperties | undefined;
  /** Who owns each partition (e.g. `blobPartitionOwners`). Absent: every owner is reported as `''`. */
  readonly readOwners?: ReadOwners;
  /** Time between the end of one refresh and the start of the next, in ms. Default 30000. */
  readonly intervalMs?: number;
  /** Deadline of each request of a refresh, in ms. Default 10000. */
  readonly requestTimeoutMs?: number;
  readonly logger?: Logger;
  /** Clock in ms since the epoch, for checkpoint ages. Default `Date.now`. */
  readonly now?: () => number;
}

interface Reading {
  readonly owner: string;
  readonly checkpoint: Checkpoint | undefined;
  readonly props: PartitionProperties;
  readonly at: number;
}

/**
 * Hub-wide lag: every partition's last enqueued sequence number against its checkpoint, with its owner,
 * refreshed in the background so that a partition stuck on any instance of the fleet is visible from
 * every instance. Never throws into the process: a failed read keeps the partition's last good values
 * and marks them stale. Checkpoints trail processing by the owner's checkpoint interval, so this lag
 * ("not yet exported or not yet checkpointed") can exceed the owner's own lag by that much.
 */
export class HubLagMonitor {
  readonly #options: HubLagMonitorOptions;
  readonly #intervalMs: number;
  readonly #timeoutMs: number;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #stopping = new AbortController();
  /** Aborted by stop(); one per refresh (see #refresh). */
  #round: AbortSignal = new AbortController().signal;
  readonly #readings = new Map<string, Reading>();
  readonly #stale = new Set<string>();
  #partitionIds: readonly string[] = [];
  #owners: OwnerMap = new Map();
  #inFlight: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #started = false;
  #failing = false;

  constructor(options: HubLagMonitorOptions) {
    this.#options = options;
    this.#intervalMs = options.intervalMs ?? DEFAULT_HUB_LAG_INTERVAL_MS;
    this.#timeoutMs = options.requestTimeoutMs ?? DEFAULT_HUB_LAG_REQUEST_TIMEOUT_MS;
    this.#logger = options.logger ?? noopLogger;
    this.#now = options.now ?? Date.now;
    if (!(this.#intervalMs > 0)) throw new RangeError(`intervalMs (${this.#intervalMs}) must be above 0`);
    if (!(this.#timeoutMs > 0)) throw new RangeError(`requestTimeoutMs (${this.#timeoutMs}) must be above 0`);
  }

  /** Refreshes at once, then every interval until `stop()`. Idempotent; a no-op after `stop()`. */
  start(): void {
    if (this.#started || this.#stopping.signal.aborted) return;
    this.#started = true;
    void this.#tick();
  }

  /** Stops the refreshes and waits for the one in flight (bounded by the request deadlines). Idempotent. */
  async stop(): Promise<void> {
    this.#stopping.abort(new Error('hub lag monitor stopped'));
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#inFlight;
  }

  /**
   * Refreshes now, or joins the refresh already running. Never rejects: failures are logged and leave the
   * affected partitions stale. For tests and for callers that want a value before the first interval.
   */
  refresh(): Promise<void> {
    if (this.#stopping.signal.aborted) return Promise.resolve();
    this.#inFlight ??= this.#refresh()
      .catch((error: unknown) => this.#logger.warn('hub lag refresh failed', { error: redactError(error) }))
      .finally(() => (this.#inFlight = undefined));
    return this.#inFlight;
  }

  /** The last reading of every partition seen, in partition order. Cheap: no I/O. */
  snapshot(): HubPartitionLag[] {
    const now = this.#now();
    const out: HubPartitionLag[] = [];
    for (const partitionId of this.#partitionIds) {
      const r = this.#readings.get(partitionId);
      if (!r) continue;
      const updatedOn = r.checkpoint?.updatedOn?.getTime();
      out.push({
        partitionId,
        owner: r.owner,
        checkpointSequenceNumber: r.checkpoint?.sequenceNumber,
        lastEnqueuedSequenceNumber: r.props.lastEnqueuedSequenceNumber,
        lagEvents: hubLagEvents(r.checkpoint?.sequenceNumber, r.props),
        // Storage's clock against ours: a small skew could make a fresh checkpoint look negative in age.
        checkpointAgeSeconds: updatedOn === undefined ? undefined : Math.max(0, (now - updatedOn) / 1000),
        lastEnqueuedTime: r.props.isEmpty ? undefined : r.props.lastEnqueuedOnUtc,
        refreshedAt: new Date(r.at),
        stale: this.#stale.has(partitionId),
      });
    }
    return out;
  }

  async #tick(): Promise<void> {
    await this.refresh();
    if (this.#stopping.signal.aborted) return;
    // Scheduled after the refresh ends, so refreshes never overlap however slow the hub is.
    this.#timer = setTimeout(() => void this.#tick(), this.#intervalMs);
    this.#timer.unref();
  }

  async #refresh(): Promise<void> {
    // The requests' signals hang off a controller that lives for one refresh, not off the long-lived stop
    // signal: a dependent signal registered on that one at every request would pile up for the process's life.
    const round = new AbortController();
    const onStop = () => round.abort(this.#stopping.signal.reason);
    this.#stopping.signal.addEventListener('abort', onStop, { once: true });
    this.#round = round.signal;
    try {
      const [ids, owners, checkpoints] = await Promise.all([
        this.#readPartitionIds(),
        this.#readOwners(),
        this.#readCheckpoints(),
      ]);
      const failed: string[] = [];
      const queue = [...ids];
      const worker = async (): Promise<void> => {
        for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
          if (!(await this.#refreshPartition(id, owners, checkpoints))) failed.push(id);
        }
      };
      await Promise.all(Array.from({ length: Math.min(REFRESH_CONCURRENCY, ids.length) }, worker));
      this.#report(failed, ids.length, owners === undefined);
    } finally {
      this.#stopping.signal.removeEventListener('abort', onStop);
    }
  }

  /** The hub's partition ids, or the last known ones (all stale) when the hub does not answer. */
  async #readPartitionIds(): Promise<readonly string[]> {
    try {
      const props = await this.#deadline((signal) => this.#options.hub.getHubProperties(signal));
      this.#partitionIds = sortPartitionIds(props.partitionIds);
      for (const id of this.#readings.keys()) if (!this.#partitionIds.includes(id)) this.#readings.delete(id);
    } catch (error) {
      if (this.#stopping.signal.aborted) return [];
      this.#logFailure('hub properties unavailable; hub lag keeps its last values', error);
      for (const id of this.#partitionIds) this.#stale.add(id);
      return [];
    }
    return this.#partitionIds;
  }

  /** The owners now, or undefined when they could not be read (the last known ones are used, stale). */
  async #readOwners(): Promise<OwnerMap | undefined> {
    const read = this.#options.readOwners;
    if (!read) return this.#owners;
    try {
      this.#owners = await this.#deadline(read);
      return this.#owners;
    } catch (error) {
      if (this.#stopping.signal.aborted) return undefined;
      this.#logFailure('partition owners unavailable; hub lag keeps the last known owners', error);
      return undefined;
    }
  }

  /**
   * All checkpoints in one call when `readCheckpoints` is given: a map (a partition absent from it has no
   * checkpoint), or `'failed'` (each partition keeps its last known checkpoint, stale). Undefined without
   * `readCheckpoints`: each partition reads its own.
   */
  async #readCheckpoints(): Promise<ReadonlyMap<string, Checkpoint> | 'failed' | undefined> {
    const read = this.#options.readCheckpoints;
    if (!read) return undefined;
    try {
      return new Map((await this.#deadline(read)).map((c) => [c.partitionId, c]));
    } catch (error) {
      if (!this.#stopping.signal.aborted)
        this.#logFailure('checkpoints unavailable; hub lag keeps the last known ones', error);
      return 'failed';
    }
  }

  /** Reads one partition; true when its values are fresh. */
  async #refreshPartition(
    partitionId: string,
    owners: OwnerMap | undefined,
    checkpoints: ReadonlyMap<string, Checkpoint> | 'failed' | undefined,
  ): Promise<boolean> {
    const { hub, store, scope } = this.#options;
    try {
      const local = this.#options.localProperties?.(partitionId, this.#intervalMs);
      const [props, checkpoint] = await Promise.all([
        local ?? this.#deadline((signal) => hub.getPartitionProperties(partitionId, signal)),
        checkpoints === undefined
          ? // The store takes no signal (the blob store has its own request timeout); the race bounds the wait.
            this.#deadline(() => store.read(scope, partitionId))
          : checkpoints === 'failed'
            ? this.#readings.get(partitionId)?.checkpoint
            : checkpoints.get(partitionId),
      ]);
      const owner = (owners ?? this.#owners).get(partitionId) ?? '';
      this.#readings.set(partitionId, { owner, checkpoint, props, at: this.#now() });
      const fresh = owners !== undefined && checkpoints !== 'failed';
      if (fresh) this.#stale.delete(partitionId);
      else this.#stale.add(partitionId);
      return fresh;
    } catch (error) {
      this.#stale.add(partitionId);
      if (this.#stopping.signal.aborted) return false;
      this.#logger.debug('hub lag of a partition unavailable', { partitionId, error: redactError(error) });
      return false;
    }
  }

  /** Runs `call` with a signal that aborts at the request deadline or on stop, and never waits past either. */
  #deadline<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const signal = AbortSignal.any([this.#round, AbortSignal.timeout(this.#timeoutMs)]);
    return raceAbort(call(signal), signal);
  }

  #report(failed: readonly string[], total: number, ownersFailed: boolean): void {
    if (failed.length > 0 && !this.#stopping.signal.aborted && !ownersFailed) {
      const message = `hub lag of ${failed.length} of ${total} partitions unavailable; keeping their last values`;
      this.#logFailure(message, undefined, { partitionIds: failed });
    } else if (failed.length === 0 && total > 0 && this.#failing) {
      this.#failing = false;
      this.#logger.info('hub lag refreshed again for every partition', { partitions: total });
    }
  }

  /** Warns on the first failure of a streak, then at debug: a hub that stays down must not flood the log. */
  #logFailure(message: string, error: unknown, fields: Record<string, unknown> = {}): void {
    const details = error === undefined ? fields : { ...fields, error: redactError(error) };
    if (this.#failing) this.#logger.debug(message, details);
    else this.#logger.warn(message, details);
    this.#failing = true;
  }
}

/**
 * Events between a checkpoint and the newest event: 0 for an empty partition (nothing waits, whatever the
 * start position), undefined without a checkpoint (where reading starts depends on the owner's config),
 * never negative (a checkpoint ahead of the hub, e.g. after the hub was recreated, is no backlog).
 */
export function hubLagEvents(checkpoint: number | undefined, props: PartitionProperties): number | undefined {
  if (props.isEmpty) return 0;
  if (checkpoint === undefined) return undefined;
  return Math.max(0, props.lastEnqueuedSequenceNumber - checkpoint);
}
