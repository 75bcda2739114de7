import type { ContainerClient } from '@azure/storage-blob';
import type { CheckpointScope } from './checkpoint.ts';
import type { OwnershipCoordinator } from './coordinator.ts';
import { LeaseOwnershipCoordinator } from './lease-ownership-coordinator.ts';
import type { BalanceStrategy } from './balance.ts';
import { StaticOwnership } from './static-ownership.ts';
import type { Logger } from '../component/logger.ts';

/** The lease settings of a receiver's `ownership` section, in ms (docs/ownership.md). */
export interface LeaseSettings {
  readonly lease_duration: number;
  readonly renew_interval?: number;
  readonly update_interval: number;
  readonly strategy: BalanceStrategy;
  readonly foreign_ownership_expiry: number;
}

export interface OwnershipOptions {
  /**
   * Where leases live. With a container the partitions are shared with other instances through blob
   * leases; without one (or with `partition` pinned) this instance reads every partition (or the one)
   * alone, with no leases and no owner level.
   */
  readonly container: ContainerClient | undefined;
  /** Read only this partition, alone (static ownership even with a container). */
  readonly partition?: string;
  readonly scope: CheckpointScope;
  readonly ownerId: string;
  readonly leases: LeaseSettings;
  /** The hub's partitions; `signal` ends a read in flight at shutdown (static ownership passes one). */
  readonly getPartitionIds: (signal?: AbortSignal) => Promise<readonly string[]>;
  /** The hub answered with its partitions (after start, and again after an error). */
  readonly onHubReached: (partitionIds: readonly string[]) => void;
  /** The hub did not answer; the coordinator retries. */
  readonly onHubError: (error: Error) => void;
  readonly logger: Logger;
}

/** True when `createOwnership` shares partitions through blob leases. */
export function usesLeases(o: Pick<OwnershipOptions, 'container' | 'partition'>): boolean {
  return o.container !== undefined && !o.partition;
}

/** The ownership coordinator for these options: blob leases across a fleet, or static single-instance. */
export function createOwnership(o: OwnershipOptions): OwnershipCoordinator {
  if (!o.container || !usesLeases(o)) {
    return new StaticOwnership({
      ownerId: o.ownerId,
      partition: o.partition || undefined,
      logger: o.logger,
      getPartitionIds: o.getPartitionIds,
      onHubReached: o.onHubReached,
      onHubError: o.onHubError,
    });
  }
  let reached = false;
  return new LeaseOwnershipCoordinator({
    containerClient: o.container,
    scope: o.scope,
    ownerId: o.ownerId,
    leaseDurationMs: o.leases.lease_duration,
    renewIntervalMs: o.leases.renew_interval,
    updateIntervalMs: o.leases.update_interval,
    strategy: o.leases.strategy,
    foreignOwnershipExpiryMs: o.leases.foreign_ownership_expiry,
    logger: o.logger,
    getPartitionIds: async () => {
      try {
        const ids = [...(await o.getPartitionIds())];
        if (!reached) o.onHubReached(ids);
        reached = true;
        return ids;
      } catch (error) {
        reached = false;
        o.onHubError(error instanceof Error ? error : new Error(String(error)));
        throw error;
      }
    },
  });
}
