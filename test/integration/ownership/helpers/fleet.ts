/** Builds coordinators against one Azurite container and shuts them all down after the test. */
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import type { TestContext } from 'node:test';
import { startAzurite, randomName, type Azurite } from '../../../helpers/azurite.ts';
import {
  LeaseOwnershipCoordinator,
  type LeaseOwnershipCoordinatorOptions,
} from '../../../../src/ownership/lease-ownership-coordinator.ts';
import type { CheckpointScope } from '../../../../src/ownership/checkpoint.ts';
import { Timeline } from './fake-lifecycle.ts';

export const TEST_LEASE_DURATION_MS = 15_000; // Azurite's (and Azure's) minimum
export const TEST_RENEW_INTERVAL_MS = 5_000;
export const TEST_UPDATE_INTERVAL_MS = 300;

export interface Fleet {
  readonly azurite: Azurite;
  readonly container: ContainerClient;
  readonly scope: CheckpointScope;
  readonly timeline: Timeline;
  readonly partitionIds: string[];
  /** Creates and starts a coordinator named `who` (also its owner id). */
  add(who: string, options?: Partial<LeaseOwnershipCoordinatorOptions>): Promise<LeaseOwnershipCoordinator>;
  readonly coordinators: Map<string, LeaseOwnershipCoordinator>;
}

export async function startFleet(t: TestContext, partitions: number, azurite?: Azurite): Promise<Fleet> {
  const az = azurite ?? (await startAzurite());
  const coordinators = new Map<string, LeaseOwnershipCoordinator>();
  t.after(async () => {
    await Promise.allSettled([...coordinators.values()].map((c) => c.shutdown()));
    if (!azurite) await az.stop();
  });
  const container = BlobServiceClient.fromConnectionString(az.connectionString).getContainerClient(randomName('c'));
  await container.create();
  const scope: CheckpointScope = {
    fullyQualifiedNamespace: `${randomName('ns')}.servicebus.windows.net`,
    eventHubName: randomName('Hub'),
    consumerGroup: '$Default',
  };
  const timeline = new Timeline();
  const partitionIds = Array.from({ length: partitions }, (_, i) => String(i));
  return {
    azurite: az,
    container,
    scope,
    timeline,
    partitionIds,
    coordinators,
    async add(who, options = {}) {
      const coordinator = new LeaseOwnershipCoordinator({
        containerClient: container,
        scope,
        ownerId: who,
        leaseDurationMs: TEST_LEASE_DURATION_MS,
        renewIntervalMs: TEST_RENEW_INTERVAL_MS,
        updateIntervalMs: TEST_UPDATE_INTERVAL_MS,
        getPartitionIds: async () => partitionIds,
        ...options,
      });
      coordinators.set(who, coordinator);
      await coordinator.start(timeline.lifecycle(who));
      return coordinator;
    },
  };
}
