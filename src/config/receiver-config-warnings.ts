import type { Signal } from '../pipeline/signals.ts';
import type { ReceiverConfig } from './receiver-config.ts';

/**
 * The Go receiver's keys this receiver accepts so Go configs load unchanged, but does not use: one line
 * each, `key: what happens instead and what to write`, relative to the receiver's section. Printed by
 * `validate` and logged at start, so nothing a user wrote is ignored silently.
 */
export function receiverConfigWarnings(config: ReceiverConfig): string[] {
  const out: string[] = [];
  if (config.storage !== undefined) {
    const where = config.blob_checkpoint_store
      ? ''
      : '; without it checkpoints stay in memory and a restart begins at start_position';
    out.push(`storage: ignored (no storage extensions here); use blob_checkpoint_store to keep checkpoints${where}`);
  }
  return out;
}

/**
 * Keys of one signal set on a receiver that feeds no pipeline of that signal (`time_formats.metrics` with
 * only a logs pipeline): they change nothing until such a pipeline lists the receiver. Same line format as
 * receiverConfigWarnings; `signals` are the signals the receiver feeds.
 */
export function unusedSignalKeyWarnings(config: ReceiverConfig, signals: ReadonlySet<Signal>): string[] {
  const out: string[] = [];
  const unused = (signal: Signal) => `unused: no ${signal} pipeline lists this receiver (it applies to ${signal} only)`;
  if (config.metric_aggregation !== undefined && !signals.has('metrics')) {
    out.push(`metric_aggregation: ${unused('metrics')}`);
  }
  for (const signal of ['metrics', 'traces'] as const) {
    if (config.time_formats[signal] === undefined || signals.has(signal)) continue;
    out.push(`time_formats.${signal}: ${unused(signal)}`);
  }
  return out;
}
