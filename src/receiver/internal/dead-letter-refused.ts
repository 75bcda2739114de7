import { isPermanentError } from '../../component/errors.ts';
import { isRequestTooLarge } from '../../pipeline/partial-refusal.ts';
import { RetriesExhaustedError } from '../../pipeline/retry.ts';
import { pause } from '../../component/abort.ts';
import { backoffDelayMs } from '../../component/backoff.ts';
import type { PartitionPumpOptions } from '../partition-pump-options.ts';
import type { RefusedEvent } from './refused-events.ts';

/** What writing refused events reads of the pump's options. */
export type DeadLetterOptions = Pick<
  PartitionPumpOptions,
  'partitionId' | 'receiverId' | 'context' | 'deadLetter' | 'counters' | 'logger' | 'emit'
>;

/**
 * Writes refused events to the dead-letter store (or drops them, when chosen), retrying until durable or
 * killed; then logs one error line (rate-limited by the receiver's logger) saying what went where and why.
 * False when `kill` aborted first.
 */
export async function deadLetterRefused(
  o: DeadLetterOptions,
  refused: readonly RefusedEvent[],
  kill: AbortSignal,
): Promise<boolean> {
  const first = refused[0]!;
  const reasons = [...new Set(refused.map((r) => r.error.message))];
  const fields = {
    ...(o.receiverId ? { receiver: o.receiverId } : {}),
    partitionId: o.partitionId,
    events: refused.length,
    firstSequenceNumber: first.event.sequenceNumber,
    lastSequenceNumber: refused[refused.length - 1]!.event.sequenceNumber,
    error: reasons.join('; '),
    type: [...new Set(refused.map((r) => deadLetterType(r.error)))].join(','),
  };
  if (!o.deadLetter) {
    o.counters.eventsDropped += refused.length;
    o.logger.error('export refused: records dropped (dead_letter.drop is set)', fields);
    return true;
  }
  const at = new Date();
  const entries = refused.map(({ event, error, signals }) => ({
    event,
    source: o.context,
    error: { type: deadLetterType(error), message: error.message },
    at,
    // Logs-only receivers write the line as before; with other signals, the line says which were refused.
    ...(signals && signals.some((s) => s !== 'logs') ? { signals } : {}),
  }));
  for (let attempt = 1; ; attempt++) {
    try {
      await o.deadLetter.write(entries);
      o.counters.eventsDeadLettered += refused.length;
      o.emit({ type: 'deadLettered', partitionId: o.partitionId, events: refused.length, error: first.error });
      const store = o.deadLetter.locationOf?.(entries[0]!) ?? o.deadLetter.constructor?.name ?? 'dead-letter store';
      o.logger.error('export refused: events written to the dead-letter store', { ...fields, store });
      return true;
    } catch (dlError) {
      o.logger.error('dead-letter write failed; retrying (the partition waits: nothing is checkpointed past it)', {
        partitionId: o.partitionId,
        attempt,
        error: String(dlError),
      });
      if (!(await pause(backoffDelayMs(attempt, 1_000, 30_000), kill))) return false;
    }
  }
}

/** The dead-letter entry's `error.type`: why the pipeline refused the event. */
function deadLetterType(error: Error): string {
  if (isRequestTooLarge(error)) return 'request_too_large';
  if (error instanceof RetriesExhaustedError || !isPermanentError(error)) return 'retries_exhausted';
  return 'permanent';
}
