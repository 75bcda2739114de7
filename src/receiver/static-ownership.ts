import type { OwnershipCoordinator, PartitionLifecycle } from '../ownership/coordinator.ts';
import type { Logger } from '../component/logger.ts';
import { sleep } from '../component/abort.ts';
import { backoffDelayMs } from '../component/backoff.ts';

export interface StaticOwnershipOptions {
  /** The hub's partitions (retried with backoff until it answers or shutdown). */
  readonly getPartitionIds: (signal: AbortSignal) => Promise<readonly string[]>;
  /** Read only this partition. Default: all. */
  readonly partition?: string;
  readonly ownerId: string;
  readonly logger: Logger;
  /** Wait before restarting a partition another reader took. Default 5000 ms. */
  readonly restartDelayMs?: number;
  readonly onHubError?: (error: Error) => void;
  readonly onHubReached?: (partitionIds: readonly string[]) => void;
}

/**
 * Single-instance ownership, used when no blob_checkpoint_store is configured or a `partition` is pinned:
 * this instance reads every partition (or the one configured), with no leases and no owner level.
 */
export class StaticOwnership implements OwnershipCoordinator {
  readonly ownerId: string;
  readonly #o: StaticOwnershipOptions;
  readonly #owned = new Set<string>();
  readonly #abort = new AbortController();
  #lifecycle: PartitionLifecycle | undefined;
  #loop: Promise<void> | undefined;
  #shutdown: Promise<void> | undefined;

  constructor(options: StaticOwnershipOptions) {
    this.#o = options;
    this.ownerId = options.ownerId;
  }

  async start(lifecycle: PartitionLifecycle): Promise<void> {
    if (this.#loop || this.#shutdown) return;
    this.#lifecycle = lifecycle;
    this.#loop = this.#claimAll().catch((e: unknown) => {
      if (!this.#abort.signal.aborted) this.#o.logger.error('static ownership stopped', { error: String(e) });
    });
  }

  owned(): readonly string[] {
    return [...this.#owned];
  }

  /** Called by the receiver when a partition's reader ended on its own (another reader took it). */
  partitionEnded(partitionId: string): void {
    if (!this.#owned.delete(partitionId) || this.#abort.signal.aborted) return;
    void sleep(this.#o.restartDelayMs ?? 5_000, this.#abort.signal)
      .then(() => this.#startOne(partitionId))
      .catch(() => undefined);
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
      this.#o.logger.error('the configured partition does not exist in the hub', { partition: this.#o.partition, partitions: ids.join(',') });
      return;
    }
    await Promise.all(wanted.map((id) => this.#startOne(id)));
  }

  async #startOne(partitionId: string): Promise<void> {
    for (let attempt = 1; !this.#abort.signal.aborted; attempt++) {
      try {
        // Nothing but shutdown ends a static claim, and shutdown stops partitions gracefully, so `lost` never
        // fires. Each claim has its own signal: the receiver listens on it, and one signal shared by every
        // partition would gather a listener per partition start (Node warns past 10).
        await this.#lifecycle!.startPartition({ partitionId, lost: new AbortController().signal });
        this.#owned.add(partitionId);
        return;
      } catch (error) {
        if (this.#abort.signal.aborted) return;
        this.#o.logger.warn('could not start partition; retrying', { partitionId, error: String(error), attempt });
        await sleep(backoffDelayMs(attempt, 1_000, 30_000), this.#abort.signal).catch(() => undefined);
      }
    }
  }

  shutdown(): Promise<void> {
    this.#shutdown ??= (async () => {
      this.#abort.abort(new Error('shutdown'));
      await this.#loop;
      const lifecycle = this.#lifecycle;
      if (lifecycle) await Promise.all([...this.#owned].map((id) => lifecycle.stopPartition(id, 'shutdown')));
      this.#owned.clear();
    })();
    return this.#shutdown;
  }
}
