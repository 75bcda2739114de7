import { isPermanentError } from '../component/errors.ts';
import type { Logger } from '../component/logger.ts';
import type { SignalConsumer } from './consumer.ts';
import { batchItemCount, type SignalBatch } from './signal-batch.ts';
import { isRequestTooLarge, PartialRefusalError, RequestTooLargeError, type Refusal } from './partial-refusal.ts';
import { RetriesExhaustedError } from './retry.ts';
import { batchOf, ITEM_NAMES, refusalOf, signalItems, type SignalItem } from './signal-items.ts';
import type { Signal } from './signals.ts';

/**
 * A request of at most this size that the server still calls too large is not split further: no OTLP
 * server limits messages that far down, so the answer is about something else (a quota answered with
 * RESOURCE_EXHAUSTED and no RetryInfo) and the part is refused as a whole with the server's reason.
 * Without this floor, a batch of n records would cost 2n − 1 requests to refuse. 65 536 bytes.
 */
export const MIN_SPLIT_BYTES = 65_536;

export interface RequestBytesLimitOptions<S extends Signal = 'logs'> {
  /** Largest request, in bytes of the serialized request before compression. 0: no bound of our own. */
  readonly maxBytes: number;
  /** Bytes of the serialized request for `items`. */
  readonly measure: (items: readonly SignalItem<S>[]) => number;
  /**
   * The signal whose items are bounded: `records` (logs), `metrics` or `spans` of each batch; the batch
   * handed on holds only that part. Default `logs`.
   */
  readonly signal?: S;
  /** Name in messages, e.g. `otlp/backend`. Default `exporter`. */
  readonly name?: string;
  /** Config key named in messages. Default `max_request_bytes`. */
  readonly configKey?: string;
  /** Where a limit the server names (below ours) is reported (warn). Default: not logged. */
  readonly logger?: Logger;
}

/**
 * Bounds the requests `next` sends by bytes (below a retry: wrap `withRetry(exporter)` with it). A batch
 * whose request would exceed `maxBytes` is split in halves, recursively, and the parts are sent one after
 * the other; a single record larger than the bound is refused at once with a `RequestTooLargeError` that
 * says so, while the rest of its batch is delivered. A part the server refuses for its size (a
 * `RequestTooLargeError` from the exporter: gRPC RESOURCE_EXHAUSTED without RetryInfo, HTTP 413) is split
 * and its halves sent instead of the same bytes again; when the server names its limit ("larger than max
 * (X vs. Y)") and it is below ours, parts are cut to it from then on. A single record the server still
 * refuses is refused with the server's reason.
 *
 * The call resolves when every part was delivered. When some records were refused and others delivered it
 * rejects with a `PartialRefusalError` (permanent) listing the refused records with their reasons, so the
 * receiver dead-letters only their events; when everything was refused for one reason, with that reason.
 * After a part failed for another permanent reason, the following parts are still tried (a bad value in
 * one part does not refuse its neighbours), except after `RetriesExhaustedError`: the destination has been
 * failing for `max_elapsed_time`, so the rest is refused with it at once. A retryable failure (retry
 * disabled) rejects as is: the caller retries the whole batch, at-least-once.
 *
 * Only the items of `options.signal` are bounded and handed on (log records by default); an exporter of
 * several signals puts one bound in front of each signal's sender.
 */
export function limitRequestBytes<S extends Signal = 'logs'>(
  next: SignalConsumer,
  options: RequestBytesLimitOptions<S>,
): SignalConsumer {
  type Records = readonly SignalItem<S>[];
  const signal = options.signal ?? ('logs' as S);
  const itemName = ITEM_NAMES[signal];
  const name = options.name ?? 'exporter';
  const configKey = options.configKey ?? 'max_request_bytes';
  const ours = options.maxBytes > 0 ? options.maxBytes : Number.POSITIVE_INFINITY;
  /** The smallest limit a server named below ours. */
  let learned = Number.POSITIVE_INFINITY;

  async function consume(batch: SignalBatch, abort?: AbortSignal): Promise<void> {
    const sizes = new WeakMap<Records, number>();
    const measure = (part: Records) => {
      let size = sizes.get(part);
      if (size === undefined) sizes.set(part, (size = options.measure(part)));
      return size;
    };
    const refusals: Refusal[] = [];
    let delivered = 0;
    // Parts still to send; the last is the next (a stack keeps the records in order).
    const all = signalItems(batch, signal);
    // The batch itself goes on when it is sent whole and holds nothing of another signal.
    const whole = batchItemCount(batch) === all.length ? batch : batchOf(batch, signal, all);
    const stack: Records[] = [all];
    while (stack.length > 0) {
      const part = stack.pop()!;
      const limit = Math.min(ours, learned);
      if (limit !== Number.POSITIVE_INFINITY && part.length > 0 && measure(part) > limit) {
        if (part.length > 1) pushHalves(stack, part);
        else refusals.push(refusalOf(signal, part, recordTooLarge(part, limit)));
        continue;
      }
      try {
        await next.consume(part === all ? whole : batchOf(batch, signal, part), abort);
        delivered += part.length;
      } catch (error) {
        if (abort?.aborted || !isPermanentError(error)) throw error;
        if (isRequestTooLarge(error)) {
          noteServerLimit(error);
          const bytes = measure(part);
          // Cut to the server's limit on the next turn, or halve when it named none.
          if (bytes > learned) stack.push(part);
          else if (part.length > 1 && bytes > MIN_SPLIT_BYTES) pushHalves(stack, part);
          else refusals.push(refusalOf(signal, part, error));
          continue;
        }
        if (error instanceof RetriesExhaustedError) {
          refusals.push(refusalOf(signal, [part, ...stack.reverse()].flat() as Records, error));
          break;
        }
        refusals.push(refusalOf(signal, part, error as Error));
      }
    }
    if (refusals.length === 0) return;
    if (delivered === 0 && refusals.length === 1) throw refusals[0]!.error;
    throw new PartialRefusalError(refusals, delivered);
  }

  function recordTooLarge(part: Records, limit: number): RequestTooLargeError {
    const size = options.measure(part);
    const whose = limit === ours ? `${configKey} (${limit} bytes)` : `the server's limit (${limit} bytes)`;
    const message = `${name}: ${itemName} of ${size} bytes is larger than ${whose}: it cannot be sent in any request`;
    return new RequestTooLargeError(message, {
      limitBytes: limit,
      sizeBytes: size,
    });
  }

  function noteServerLimit(error: RequestTooLargeError): void {
    const named = error.limitBytes;
    if (named === undefined || named >= Math.min(ours, learned)) return;
    learned = named;
    options.logger?.warn(`the server refuses requests over ${named} bytes: requests are cut to that size from now on`, {
      exporter: name,
      [configKey]: Number.isFinite(ours) ? ours : 0,
      hint: `set ${configKey} to at most ${named}`,
    });
  }

  return {
    consume,
    forceFlush: next.forceFlush ? () => next.forceFlush!() : undefined,
    shutdown: next.shutdown ? () => next.shutdown!() : undefined,
    // Parts of one call go one after the other: one call in flight here is one call in flight below.
    attachProducer: next.attachProducer ? () => next.attachProducer!() : undefined,
  };
}

/** Pushes the two halves of `part` so the first half is sent first. */
function pushHalves<Item>(stack: (readonly Item[])[], part: readonly Item[]): void {
  const middle = Math.ceil(part.length / 2);
  stack.push(part.slice(middle), part.slice(0, middle));
}
