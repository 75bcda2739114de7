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
  if (config.metric_aggregation !== undefined) out.push('metric_aggregation: ignored; this receiver produces logs only');
  for (const signal of ['metrics', 'traces'] as const) {
    if (config.time_formats[signal] === undefined) continue;
    out.push(`time_formats.${signal}: ignored; this receiver produces logs only (time_formats.logs applies)`);
  }
  return out;
}
