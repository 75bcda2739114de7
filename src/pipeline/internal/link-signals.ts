import { abortReason } from '../../component/abort.ts';

/**
 * One signal per consumer, each aborted (with the same reason) when `signal` aborts, through one listener
 * on `signal`. Why: every exporter adds its own abort listeners (its retry's wait, its adapter's callback
 * race) while a call is in flight; nine exporters listening on the caller's one signal passed Node's
 * limit of 10 listeners per event and printed a MaxListenersExceededWarning on every batch.
 */
export function linkSignals(
  signal: AbortSignal | undefined,
  count: number,
): { signals: (AbortSignal | undefined)[]; release(): void } {
  if (!signal) return { signals: Array.from({ length: count }, () => undefined), release: () => {} };
  const controllers = Array.from({ length: count }, () => new AbortController());
  const onAbort = () => {
    for (const c of controllers) c.abort(abortReason(signal));
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return { signals: controllers.map((c) => c.signal), release: () => signal.removeEventListener('abort', onAbort) };
}
