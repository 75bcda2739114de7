import type { Logger } from '../../component/logger.ts';
import { redactError } from '../../component/redact.ts';
import type { OwnershipEvent } from '../../ownership/coordinator.ts';
import type { ReceiverStatus } from '../receiver-status.ts';
import type { PumpCounters } from './pump-counters.ts';
import { errorHints } from '../../component/failure-hints.ts';

/** Ownership events of either coordinator, as logs and receiver status: the one place they are told. */
export function tellOwnershipEvent(
  event: OwnershipEvent,
  to: { readonly logger: Logger; readonly emit: (status: ReceiverStatus) => void; readonly counters: PumpCounters },
): void {
  switch (event.type) {
    case 'startFailed':
      to.counters.restarts.startFailed++;
      to.emit({
        type: 'partitionStartFailed',
        partitionId: event.partitionId,
        error: event.error,
        retryInMs: event.retryInMs,
      });
      to.logger.error('could not start reading the partition; retrying with backoff', {
        partitionId: event.partitionId,
        error: redactError(event.error),
        retryInMs: event.retryInMs,
        ...errorHints(event.error),
      });
      break;
    case 'ended':
      // The pump's end was already logged as a warning; this says when this instance may take it back.
      to.logger.info('partition handed back after its reader ended; it will be claimed again', {
        partitionId: event.partitionId,
        reason: event.end.reason,
        retryInMs: event.retryInMs,
      });
      break;
    case 'balanced':
      to.emit({ type: 'storageRecovered' });
      if (event.owned.length === 0) to.emit({ type: 'standby' });
      break;
    case 'storageError':
      if ((event.error as { leaseLost?: boolean }).leaseLost === true) {
        // Storage answered: the lease under which we asked is gone (it lapsed and another instance holds it,
        // or it was released). Nothing is failing; what it guarded is stopped by the coordinator.
        to.logger.warn('lease lost: storage refused a request under a lease this instance no longer holds', {
          error: redactError(event.error),
        });
        break;
      }
      to.emit({ type: 'storageFailing', error: event.error });
      to.logger.warn('checkpoint store unreachable', {
        error: redactError(event.error),
        ...errorHints(event.error),
      });
      break;
    case 'renewalFailed':
      to.logger.warn('lease renewal failed; retrying until the lease could lapse', {
        partitionId: event.partitionId,
        error: redactError(event.error),
      });
      break;
    case 'claimsPaused':
      to.counters.claimPauses++;
      // Storage answers renewals slower than the claims can wait: the leases held come first (docs/ownership.md).
      to.logger.warn('lease renewals are late: new claims wait until they are back in time', {
        lateMs: event.lateMs,
        owned: event.owned,
        deferred: event.deferred,
      });
      break;
    case 'claimsResumed':
      to.logger.info('lease renewals are back in time: claiming again');
      break;
    case 'claimed':
      to.logger.info('partition claimed', { partitionId: event.partitionId, ownerLevel: event.ownerLevel });
      break;
    case 'foreignOwners':
      // Expected while another processor (an Azure SDK processor, the Go receiver, Filebeat) still runs on
      // this consumer group, as in a rolling migration: its partitions wait for it. Once per change.
      to.emit({ type: 'foreignOwners', partitions: event.partitions });
      if (event.partitions.size === 0) to.logger.info('no partition is held by a foreign owner any more');
      else {
        to.logger.info('partitions held by a foreign owner (not this fleet) are left to it', {
          partitions: Object.fromEntries(event.partitions),
        });
      }
      break;
    case 'released':
      if (event.reason === 'lost')
        to.logger.error('partition ownership lost: reading stopped', { partitionId: event.partitionId });
      else to.logger.info('partition lease released', { partitionId: event.partitionId, reason: event.reason });
      break;
  }
}
