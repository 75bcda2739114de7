import type { Signal } from '../pipeline/signals.ts';
import type { ReceiverConfig } from './receiver-config.ts';

/**
 * The format a receiver section decodes with: `encoding: azure_encoding[/name]` is the Go spelling of azure_encoding.
 */
export function effectiveFormat(config: Pick<ReceiverConfig, 'format' | 'encoding'>): ReceiverConfig['format'] {
  return config.encoding ? 'azure_encoding' : config.format;
}

/**
 * The signals a receiver's format can produce: `azure` decodes Azure metrics into metric points and
 * Application Insights requests and dependencies into spans; `raw`, `json` and `azure_encoding` produce log
 * records only (as the Go receiver's raw and azure_encoding formats, which have no metrics or traces mapping
 * here).
 */
export function formatSignals(config: Pick<ReceiverConfig, 'format' | 'encoding'>): ReadonlySet<Signal> {
  return new Set<Signal>(effectiveFormat(config) === 'azure' ? ['logs', 'metrics', 'traces'] : ['logs']);
}

/**
 * Why `config` cannot feed a `signal` pipeline, or undefined when it can: relative to the receiver's section,
 * `format: ...` with what to do.
 */
export function signalFormatProblem(
  config: Pick<ReceiverConfig, 'format' | 'encoding'>,
  signal: Signal,
): string | undefined {
  if (formatSignals(config).has(signal)) return undefined;
  const format = effectiveFormat(config);
  const key = config.encoding ? 'encoding' : 'format';
  const what =
    signal === 'metrics' ? 'metric points (Azure metrics)' : 'spans (Application Insights requests and dependencies)';
  return (
    `${key}: ${format} produces log records only, so it cannot feed a ${signal} pipeline; ` +
    `use format: azure for ${what}, or remove the receiver from the ${signal} pipeline`
  );
}

/** The decoder options a receiver's config sets for metrics and traces (see DecoderOptions). */
export function signalDecoderOptions(config: ReceiverConfig, signals: ReadonlySet<Signal>) {
  return {
    signals,
    metricAggregation: config.metric_aggregation === 'average' ? ('average' as const) : ('' as const),
    metricTimeFormats: config.time_formats.metrics,
    traceTimeFormats: config.time_formats.traces,
  };
}
