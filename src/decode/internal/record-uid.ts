import { createHash } from 'node:crypto';
import type { DecodeContext } from '../decoder.ts';

/** OpenTelemetry's attribute for a log record's unique id (semantic conventions, `log.record.uid`). */
export const ATTR_LOG_RECORD_UID = 'log.record.uid';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const MAX_ULID_TIME_MS = 2 ** 48 - 1;

/**
 * A deterministic ULID for the `index`th log record of one event: 48 bits of time (the enqueued time, so ids sort
 * by arrival as ULIDs do), then 80 bits of SHA-256 over the lower-cased namespace, the hub, the partition, the
 * sequence number and the index. The consumer group is left out on purpose: every group reads the same records.
 * Re-reading the event (after a crash, on another instance, through either backend) gives the same id; any other
 * record gets another one (a collision needs two equal 80-bit hashes in the same millisecond).
 */
export function recordUid(context: DecodeContext, sequenceNumber: number, enqueuedMs: number, index: number): string {
  const namespace = context.namespace.toLowerCase();
  const key = `${namespace}\n${context.eventHubName}\n${context.partitionId}\n${sequenceNumber}\n${index}`;
  const hash = createHash('sha256').update(key).digest();
  let time = Math.min(Math.max(Math.floor(enqueuedMs), 0), MAX_ULID_TIME_MS);
  const timeChars = new Array<string>(10);
  for (let i = 9; i >= 0; i--) {
    timeChars[i] = CROCKFORD[time % 32]!;
    time = Math.floor(time / 32);
  }
  let out = timeChars.join('');
  // 80 bits = 16 characters of 5 bits, read from the first 10 bytes of the hash.
  let bits = 0;
  let value = 0;
  for (let i = 0; i < 10; i++) {
    value = (value << 8) | hash[i]!;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CROCKFORD[(value >>> bits) & 31];
    }
    value &= (1 << bits) - 1;
  }
  return out;
}
