import { z } from 'zod';
import { durationMs, formatDurationMs } from '../config/duration.ts';
import type { LeaseOwnershipCoordinatorOptions } from './lease-ownership-coordinator.ts';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_SAFETY_MARGIN_MS,
  DEFAULT_UPDATE_INTERVAL_MS,
  MAX_LEASE_DURATION_MS,
  MIN_LEASE_DURATION_MS,
} from './internal/coordinator-timings.ts';

// Azure container names: 3–63 characters, lower-case letters, digits and single hyphens, starting and
// ending with a letter or digit.
const CONTAINER_NAME = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){2,62}$/;

/** `blob_checkpoint_store`: where ownership and checkpoint blobs live. Keys of the Go receiver plus `create_container`. */
export const blobCheckpointStoreConfigSchema = z
  .strictObject({
    /** Storage connection string (account key or SAS). Exactly one of this and storage_account_url. */
    connection: z.string().min(1).optional(),
    /** Blob service URL (`https://<account>.blob.core.windows.net`), authenticated with Entra ID. */
    storage_account_url: z.url().optional(),
    /** Container for the blobs. Required. */
    container_name: z.string(),
    /** Create the container when missing. Default false. */
    create_container: z.boolean().default(false),
  })
  .superRefine((c, ctx) => {
    if ((c.connection === undefined) === (c.storage_account_url === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['connection'], message: 'give exactly one of connection or storage_account_url' });
    }
    if (!CONTAINER_NAME.test(c.container_name)) {
      ctx.addIssue({
        code: 'custom',
        path: ['container_name'],
        message: `'${c.container_name}' is not a valid container name: use 3–63 lower-case letters, digits and single hyphens, starting and ending with a letter or digit`,
      });
    }
  });

export type BlobCheckpointStoreConfig = z.output<typeof blobCheckpointStoreConfigSchema>;

/** `ownership`: lease timing and balancing strategy. Durations are Go-style strings ("15s") or ms. */
export const ownershipConfigSchema = z
  .strictObject({
    /** Blob lease duration, whole seconds from 15s to 60s. Default 15s. */
    lease_duration: durationMs.default(DEFAULT_LEASE_DURATION_MS),
    /** Interval between lease renewals; at most half of lease_duration. Default a third of lease_duration. */
    renew_interval: durationMs.optional(),
    /** Interval between balancing rounds. Default 5s. */
    update_interval: durationMs.default(DEFAULT_UPDATE_INTERVAL_MS),
    /** `balanced` claims one partition per round, `greedy` its whole share at once. Default balanced. */
    strategy: z.enum(['balanced', 'greedy']).default('balanced'),
    /** This instance's owner id. Default a random UUID per process. */
    owner_id: z.string().min(1).optional(),
  })
  .superRefine((o, ctx) => {
    const lease = o.lease_duration;
    const leaseOk = lease >= MIN_LEASE_DURATION_MS && lease <= MAX_LEASE_DURATION_MS && lease % 1000 === 0;
    if (!leaseOk) {
      ctx.addIssue({
        code: 'custom',
        path: ['lease_duration'],
        message: `lease_duration (${formatDurationMs(lease)}) must be whole seconds from 15s to 60s, the blob lease limits; the default is 15s`,
      });
    }
    const third = Math.round(lease / 3);
    if (o.renew_interval !== undefined && (o.renew_interval <= 0 || o.renew_interval > lease / 2)) {
      ctx.addIssue({
        code: 'custom',
        path: ['renew_interval'],
        message: `renew_interval (${formatDurationMs(o.renew_interval)}) must be more than 0 and at most half of lease_duration (${formatDurationMs(lease)}); set it to about a third (${formatDurationMs(third)})`,
      });
    } else if (leaseOk && o.renew_interval !== undefined && lease - DEFAULT_SAFETY_MARGIN_MS <= o.renew_interval) {
      ctx.addIssue({ code: 'custom', path: ['renew_interval'], message: `renew_interval (${formatDurationMs(o.renew_interval)}) leaves no room for the 2s safety margin; set it to about ${formatDurationMs(third)}` });
    }
    if (o.update_interval <= 0) {
      ctx.addIssue({ code: 'custom', path: ['update_interval'], message: `update_interval must be more than 0; the default is ${formatDurationMs(DEFAULT_UPDATE_INTERVAL_MS)}` });
    }
  })
  .transform((o) => ({ ...o, renew_interval: o.renew_interval ?? Math.round(o.lease_duration / 3) }));

export type OwnershipConfig = z.output<typeof ownershipConfigSchema>;

/** The coordinator options an `ownership` section sets (everything but storage, scope and partition ids). */
export function coordinatorOptionsFromConfig(
  config: OwnershipConfig,
): Pick<LeaseOwnershipCoordinatorOptions, 'leaseDurationMs' | 'renewIntervalMs' | 'updateIntervalMs' | 'strategy' | 'ownerId'> {
  return {
    leaseDurationMs: config.lease_duration,
    renewIntervalMs: config.renew_interval,
    updateIntervalMs: config.update_interval,
    strategy: config.strategy,
    ...(config.owner_id !== undefined ? { ownerId: config.owner_id } : {}),
  };
}
