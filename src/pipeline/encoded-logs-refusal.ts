import { PermanentError } from '../component/errors.ts';

/**
 * A consumer's answer to a batch whose log records came encoded ahead (`SignalBatch.encodedLogs`): "send
 * these records as objects instead". The OTLP senders give it when the encoded bytes cannot go as they are
 * (one resource's records larger than `max_request_bytes`, or a server refusing a request for its size),
 * where records as objects can still be split one by one and a single oversized record refused alone.
 * The partition pump then decodes the batch on its own thread and hands it over again, so the result is
 * what it would have been without decode workers. Permanent, so no retry repeats the same bytes.
 */
export class EncodedLogsRefusedError extends PermanentError {
  readonly encodedLogsRefused = true;
}

/** Whether `error`, or an error it wraps (a fan-out's `cause`), asks for the records as objects. */
export function isEncodedLogsRefused(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if ((e as Partial<EncodedLogsRefusedError>).encodedLogsRefused === true) return true;
  }
  return false;
}
