import { performance } from 'node:perf_hooks';
import type {
  OwnershipCoordinator,
  OwnershipEvent,
  PartitionEnd,
  PartitionHandle,
  PartitionLifecycle,
} from './coordinator.ts';
import { DEFAULT_START_TIMEOUT_MS } from './internal/coordinator-timings.ts';
import { RestartBackoff } from './internal/restart-backoff.ts';
import type { Logger } from '../component/logger.ts';
import { pause, sleep } from '../component/abort.ts';
import { backoffDelayMs } from '../component/backoff.ts';

export interface StaticOwnershipOptions {
  /** The hub's partitions (retried with backoff until it answers or shutdown). */
  readonly getPartitionIds: (signal: AbortSignal) => Promise<readonly string[]>;
  /** Read only this partition. Default: all. */
  readonly partition?: string;
  readonly ownerId: string;
  readonly logger: Logger;
  /** Restart backoff after a failed start or an unexpected end, in ms. Defaults 1000 to 60000. */
  readonly restartInitialMs?: number;
  readonly restartMaxMs?: number;
  /** Longest a partition's start may take, in ms. Default 30000. */
  readonly startTimeoutMs?: number;
  readonly onHubError?: (error: Error) => void;
  readonly onHubReached?: (partitionIds: readonly string[]) => void;
}

/**
 * Single-instance ownership, used when no blob_checkpoint_store is configured or a `partition` is pinned:
 * this instance reads every partition (or the one configured), with no leases and no owner level. It owns
 * the partition handles as the lease coordinator does: a partition whose start fails or whose reading
 * ends by itself is started again after a capped, growing backoff, so it is always read or being retried.
 */
export class StaticOwnership implements OwnershipCoordinator {
  readonly ownerId: string;
  readonly #o: StaticOwnershipOptions;
  readonly #handles = new Map<string, { handle: PartitionHandle; startedAt: number }>();
  readonly #abort = new AbortController();
  readonly #listeners = new Set<(event: OwnershipEvent) => void>();
  readonly #restarts: RestartBackoff;
  readonly #starts = new Set<Promise<void>>();
  #lifecycle: PartitionLifecycle | undefined;
  #loop: Promise<void> | undefined;
  #shutdown: Promise<void> | undefined;

  constructor(options: StaticOwnershipOptions) {
    this.#o = options;
    this.ownerId = options.ownerId;
    this.#restarts = new RestartBackoff({ initialMs: options.restartInitialMs, maxMs: options.restartMaxMs });
  }

  async start(lifecycle: PartitionLifecycle): Promise<void> {
    if (this.#loop || this.#shutdown) return;
    this.#lifecycle = lifecycle;
    this.#loop = this.#claimAll().catch((e: unknown) => {
      if (!this.#abort.signal.aborted) this.#o.logger.error('static ownership stopped', { error: String(e) });
    });
  }

  owned(): readonly string[] {
    return [...this.#handles.keys()];
  }

  onEvent(listener: (event: OwnershipEvent) => void): void {
    this.#listeners.add(listener);
  }

  async #claimAll(): Promise<void> {
    let ids: readonly string[] | undefined;
    for (let attempt = 1; !ids; attempt++) {
      try {
        ids = await this.#o.getPartitionIds(this.#abort.signal);
        this.#o.onHubReached?.(ids);
      } catch (error) {
        if (this.#abort.signal.aborted) return;
        this.#o.onHubError?.(error instanceof Error ? error : new Error(String(error)));
        await sleep(backoffDelayMs(attempt, 1_000, 30_000), this.#abort.signal);
      }
    }
    const wanted = this.#o.partition ? ids.filter((id) => id === this.#o.partition) : ids;
    if (this.#o.partition && wanted.length === 0) {
      this.#o.logger.error(
        "the configured partition does not exist in the hub; set `partition` to one of the hub's partition ids",
        {
          partition: this.#o.partition,
          partitions: ids.join(','),
        },
      );
      return;
    }
    await Promise.all(wanted.map((id) => this.#track(this.#startOne(id))));
  }

  #track(start: Promise<void>): Promise<void> {
    this.#starts.add(start);
    return start.finally(() => this.#starts.delete(start));
  }

  async #startOne(partitionId: string): Promise<void> {
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      try {
        const timeout = AbortSignal.timeout(this.#o.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
        const handle = await this.#lifecycle!.startPartition({ partitionId }, AbortSignal.any([signal, timeout]));
        if (signal.aborted) {
          await handle.stop('shutdown');
          return;
        }
        const entry = { handle, startedAt: performance.now() };
        this.#handles.set(partitionId, entry);
        void handle.ended.then((end) => this.#onEnded(partitionId, entry, end));
        return;
      } catch (error) {
        if (signal.aborted) return;
        const retryInMs = this.#restarts.failed(partitionId);
        this.#emit({
          type: 'startFailed',
          partitionId,
          error: error instanceof Error ? error : new Error(String(error)),
          retryInMs,
        });
        await pause(retryInMs, signal);
      }
    }
  }

  #onEnded(partitionId: string, entry: { handle: PartitionHandle; startedAt: number }, end: PartitionEnd): void {
    if (this.#handles.get(partitionId) !== entry) return;
    this.#handles.delete(partitionId);
    if (end.reason === 'stopped' || this.#abort.signal.aborted) return;
    const retryInMs = this.#restarts.failed(partitionId, performance.now() - entry.startedAt);
    this.#emit({ type: 'ended', partitionId, end, retryInMs });
    void this.#track(
      pause(retryInMs, this.#abort.signal).then((waited) => (waited ? this.#startOne(partitionId) : undefined)),
    );
  }

  #emit(event: OwnershipEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#o.logger.warn('an ownership event listener threw', { error: String(error) });
      }
    }
  }

  shutdown(): Promise<void> {
    this.#shutdown ??= (async () => {
      this.#abort.abort(new Error('shutdown'));
      await this.#loop;
      await Promise.allSettled([...this.#starts]);
      await Promise.all([...this.#handles.values()].map(({ handle }) => handle.stop('shutdown')));
      this.#handles.clear();
    })();
    return this.#shutdown;
  }
}
