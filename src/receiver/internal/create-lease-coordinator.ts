import type { ContainerClient } from '@azure/storage-blob';
import type { CheckpointScope } from '../../ownership/checkpoint.ts';
import type { OwnershipCoordinator } from '../../ownership/coordinator.ts';
import { LeaseOwnershipCoordinator } from '../../ownership/lease-ownership-coordinator.ts';
import type { ReceiverConfig } from '../../config/receiver-config.ts';
import type { Logger } from '../../component/logger.ts';
import { redactError } from '../../component/redact.ts';
import type { ReceiverStatus } from '../receiver-status.ts';
import { errorHints } from '../../component/failure-hints.ts';

export interface LeaseCoordinatorWiring {
  readonly container: ContainerClient;
  readonly scope: CheckpointScope;
  readonly ownerId: string;
  readonly ownership: ReceiverConfig['ownership'];
  readonly getPartitionIds: () => Promise<readonly string[]>;
  readonly logger: Logger;
  readonly emit: (status: ReceiverStatus) => void;
}

/** Builds the blob-lease coordinator from the receiver config; the receiver tells its events. */
export function createLeaseCoordinator(w: LeaseCoordinatorWiring): OwnershipCoordinator {
  let reached = false;
  const coordinator = new LeaseOwnershipCoordinator({
    containerClient: w.container,
    scope: w.scope,
    ownerId: w.ownerId,
    leaseDurationMs: w.ownership.lease_duration,
    renewIntervalMs: w.ownership.renew_interval,
    updateIntervalMs: w.ownership.update_interval,
    strategy: w.ownership.strategy,
    foreignOwnershipExpiryMs: w.ownership.foreign_ownership_expiry,
    logger: w.logger,
    getPartitionIds: async () => {
      try {
        const ids = [...(await w.getPartitionIds())];
        if (!reached) w.emit({ type: 'hubReached', partitionIds: ids });
        reached = true;
        return ids;
      } catch (error) {
        reached = false;
        const err = error instanceof Error ? error : new Error(String(error));
        w.logger.warn('event hub unreachable; retrying', { error: redactError(err), ...errorHints(err) });
        w.emit({ type: 'hubUnreachable', error: err });
        throw error;
      }
    },
  });
  return coordinator;
}
