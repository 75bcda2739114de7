import { isDataRefused, isPermanentError, PermanentError } from '../component/errors.ts';
import { abortReason } from '../component/abort.ts';
import type { SignalConsumer } from './consumer.ts';
import { FanOutError, fanOut, sharedLifecycle } from './fan-out.ts';
import { batchItemCount, logRecordCount, type SignalBatch } from './signal-batch.ts';
import { describeError } from './internal/classify-export-error.ts';
import { linkSignals } from './internal/link-signals.ts';
import { isPartialRefusal, PartialRefusalError, type Refusal } from './partial-refusal.ts';
import { SIGNALS, type Signal } from './signals.ts';

/** One pipeline's first stage and the signal of that pipeline (`metrics` for `metrics/azure`). */
export interface SignalHead {
  readonly signal: Signal;
  readonly consumer: SignalConsumer;
}

/** A consumer that splits each batch by signal; `signals` are those it has heads for. */
export interface SignalRouter extends SignalConsumer {
  readonly signals: ReadonlySet<Signal>;
}

/** The part of `batch` one signal's pipelines see: that signal's items only, same source. */
function partOf(batch: SignalBatch, signal: Signal): SignalBatch | undefined {
  if (signal === 'logs') {
    if (logRecordCount(batch) === 0) return undefined;
    if (batch.metrics === undefined && batch.spans === undefined) return batch;
    return {
      records: batch.records,
      ...(batch.encodedLogs ? { encodedLogs: batch.encodedLogs } : {}),
      source: batch.source,
    };
  }
  if (signal === 'metrics') {
    return batch.metrics?.length ? { records: [], metrics: batch.metrics, source: batch.source } : undefined;
  }
  return batch.spans?.length ? { records: [], spans: batch.spans, source: batch.source } : undefined;
}

/** Every item of a part, refused for one reason. */
function wholeRefusal(part: SignalBatch, error: Error): Refusal {
  return {
    records: part.records,
    ...(part.metrics?.length ? { metrics: part.metrics } : {}),
    ...(part.spans?.length ? { spans: part.spans } : {}),
    error,
  };
}

/**
 * One receiver feeding pipelines of several signals: each batch is split by signal, and each pipeline head
 * gets only its own signal's part (logs heads the log records, metrics heads the metric points, traces
 * heads the spans); a head whose signal has nothing in the batch is not called. Several heads of one signal
 * (two logs pipelines listing the receiver) get the same part through a `fanOut`. The call resolves when
 * every part was accepted, so the receiver checkpoints only past events whose items all went out.
 *
 * Failures follow the fan-out's rules, part by part:
 * - any retryable failure (or a `DataRefusedError` anywhere: a memory limiter protecting the process) makes
 *   the call fail retryably (`FanOutError`); the retry re-sends every part, so the parts that were accepted
 *   are delivered again (at-least-once per pipeline, as for a fan-out);
 * - otherwise every failure is permanent: a batch with one part rejects with that part's error as it is;
 *   with several, with a `PartialRefusalError` naming the refused items (a part refused whole names all its
 *   items, a partial refusal its own), so the receiver dead-letters only their events.
 *
 * Items of a signal no head takes are refused (a `PartialRefusalError` naming them, or the error alone when
 * they are all there is): the receiver's decoder is told the same signals as the router (`signals`), so
 * this happens only to an embedder that routes batches the decoder was not configured for.
 */
export function routeSignals(heads: readonly SignalHead[]): SignalRouter {
  const bySignal = new Map<Signal, SignalConsumer>();
  for (const signal of SIGNALS) {
    const consumers = heads.filter((h) => h.signal === signal).map((h) => h.consumer);
    if (consumers.length > 0) bySignal.set(signal, fanOut(consumers));
  }
  const targets = [...bySignal.values()];

  async function consume(batch: SignalBatch, signal?: AbortSignal): Promise<void> {
    const calls: { part: SignalBatch; consumer: SignalConsumer }[] = [];
    const unrouted: Refusal[] = [];
    for (const s of SIGNALS) {
      const part = partOf(batch, s);
      if (!part) continue;
      const consumer = bySignal.get(s);
      if (consumer) calls.push({ part, consumer });
      else unrouted.push(wholeRefusal(part, new PermanentError(`no ${s} pipeline takes the ${s} of this receiver`)));
    }
    // One part, nothing refused: the call is that part's call, with its errors as they are.
    if (calls.length === 1 && unrouted.length === 0) return calls[0]!.consumer.consume(calls[0]!.part, signal);
    if (calls.length === 0) {
      if (unrouted.length === 0) return;
      if (unrouted.length === 1) throw unrouted[0]!.error;
      throw new PartialRefusalError(unrouted, 0);
    }
    const linked = linkSignals(signal, calls.length);
    let results: PromiseSettledResult<void>[];
    try {
      results = await Promise.allSettled(calls.map((c, i) => c.consumer.consume(c.part, linked.signals[i])));
    } finally {
      linked.release();
    }
    const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (errors.length === 0 && unrouted.length === 0) return;
    if (signal?.aborted) throw abortReason(signal);
    if (errors.some((e) => !isPermanentError(e) || isDataRefused(e))) {
      const reasons = errors.map(describeError).join('; ');
      const summary = `${errors.length} of ${calls.length} signal pipelines failed: ${reasons}`;
      throw new FanOutError(summary, errors);
    }
    const refusals: Refusal[] = [...unrouted];
    results.forEach((r, i) => {
      if (r.status !== 'rejected') return;
      const error = r.reason as Error;
      if (isPartialRefusal(error)) refusals.push(...error.refusals);
      else refusals.push(wholeRefusal(calls[i]!.part, error));
    });
    // An item two heads of one signal refused (a fan-out) counts once.
    const refused = new PartialRefusalError(refusals, 0).refusedItemCount();
    throw new PartialRefusalError(refusals, Math.max(0, batchItemCount(batch) - refused));
  }

  const logsOnly = bySignal.size === 1 && bySignal.has('logs');
  return {
    signals: new Set(bySignal.keys()),
    // Encoded log records can only go where every head is a logs head that takes them.
    acceptsEncodedLogs: logsOnly && bySignal.get('logs')!.acceptsEncodedLogs === true,
    consume,
    // A caller may reach any head (its next batch may hold every signal): it is announced to each.
    ...sharedLifecycle(targets),
  };
}
