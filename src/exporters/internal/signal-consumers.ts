import { abortReason } from '../../component/abort.ts';
import { isPermanentError, PermanentError } from '../../component/errors.ts';
import type { SignalConsumer } from '../../pipeline/consumer.ts';
import { logRecordCount, type SignalBatch } from '../../pipeline/signal-batch.ts';
import { isPartialRefusal, PartialRefusalError, type Refusal } from '../../pipeline/partial-refusal.ts';
import { refusalOf, signalItems } from '../../pipeline/signal-items.ts';
import { SIGNALS, type Signal } from '../../pipeline/signals.ts';

/**
 * One consumer per signal, each sending only its own part of a batch (log records, metric points, spans)
 * in its own requests: the OTLP exporters' senders, each with its own retry and size bound.
 */
export type SignalConsumers = Readonly<Record<Signal, SignalConsumer>>;

/**
 * An exporter's consumer over its per-signal senders. `consume(batch)` hands every non-empty part of the
 * batch to its signal's sender, all at once, and resolves when every part was accepted.
 *
 * A part that was accepted is not sent again when the same batch comes back after another part failed
 * (a retry of the batch by the receiver or a `retry_on_failure` further out): accepted parts are remembered
 * by their item arrays until the batch succeeds whole or is dropped (a WeakSet, nothing to clean up). A
 * caller that rebuilds the batch with new arrays gets the accepted parts again (at-least-once duplicates).
 *
 * Failures: any retryable one rejects with it (the accepted parts stay remembered). When all failures are
 * permanent and everything in the batch failed for one reason, that error; otherwise a
 * `PartialRefusalError` listing each failed part's items (or the refusals it reported) with its reason,
 * so the receiver dead-letters only their events.
 */
export function combineSignalConsumers(senders: SignalConsumers, name: string): SignalConsumer {
  const accepted = new WeakSet<readonly unknown[]>();

  async function consume(batch: SignalBatch, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw abortReason(signal);
    const parts = SIGNALS.filter((s) => count(batch, s) > 0 && !accepted.has(signalItems(batch, s)));
    if (parts.length === 0) return forget(batch);
    // Every sender reads only its own signal's items, so the batch itself goes to each.
    const results = await Promise.allSettled(parts.map((s) => senders[s].consume(batch, signal)));
    if (signal?.aborted) throw abortReason(signal);
    const failed: { signal: Signal; error: unknown }[] = [];
    results.forEach((result, i) => {
      const s = parts[i]!;
      if (result.status === 'fulfilled') accepted.add(signalItems(batch, s));
      else failed.push({ signal: s, error: result.reason });
    });
    if (failed.length === 0) return forget(batch);
    const retryable = failed.find((f) => !isPermanentError(f.error));
    if (retryable) throw retryable.error;
    const total = SIGNALS.reduce((n, s) => n + count(batch, s), 0);
    const only = failed.length === 1 ? failed[0]! : undefined;
    if (only && !isPartialRefusal(only.error) && count(batch, only.signal) === total) throw only.error;
    const refusals: Refusal[] = [];
    let delivered = total;
    for (const f of failed) {
      if (isPartialRefusal(f.error)) {
        refusals.push(...f.error.refusals);
        delivered -= count(batch, f.signal) - f.error.delivered;
      } else {
        refusals.push(refusalOf(f.signal, signalItems(batch, f.signal), asError(f.error, name)));
        delivered -= count(batch, f.signal);
      }
    }
    throw new PartialRefusalError(refusals, delivered);
  }

  /** The batch is done: its parts may be sent again if a caller hands the same arrays once more. */
  function forget(batch: SignalBatch): void {
    for (const s of SIGNALS) accepted.delete(signalItems(batch, s));
  }

  const all = Object.values(senders);
  return {
    consume,
    // Encoded log records reach only the logs sender; it says whether it takes them.
    acceptsEncodedLogs: senders.logs.acceptsEncodedLogs === true,
    forceFlush: async () => {
      await Promise.all(all.map((c) => c.forceFlush?.()));
    },
    shutdown: async () => {
      await Promise.all(all.map((c) => c.shutdown?.()));
    },
    attachProducer: () => {
      const detach = all.flatMap((c) => (c.attachProducer ? [c.attachProducer()] : []));
      return () => {
        for (const d of detach) d();
      };
    },
  };
}

/** Items of one signal in a batch (log records encoded ahead included). */
function count(batch: SignalBatch, signal: Signal): number {
  return signal === 'logs' ? logRecordCount(batch) : signalItems(batch, signal).length;
}

function asError(error: unknown, name: string): Error {
  return error instanceof Error ? error : new PermanentError(`${name}: ${String(error)}`);
}
