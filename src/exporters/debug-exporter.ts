import { z } from 'zod';
import type { Writable } from 'node:stream';
import type { ExporterFactory } from '../pipeline/factory.ts';
import type { SignalConsumer } from '../pipeline/consumer.ts';
import { batchItemCount, type SignalBatch } from '../pipeline/signal-batch.ts';
import type { MetricPoint, SpanRecord } from '../pipeline/signals.ts';
import { formatBasic, formatCompact, formatDetailed, formatNormal } from './internal/debug-format.ts';
import * as signals from './internal/debug-format-signals.ts';
import { SIGNALS } from '../pipeline/signals.ts';

const DEFAULT_LINE_WIDTH = 160;

/** The `debug` exporter's section. */
export const debugExporterConfigSchema = z.strictObject({
  /**
   * `basic`: one summary line per batch and signal; `normal`: one line per record (body and attributes),
   * metric point (`name{attributes} value`) or span (name, IDs, attributes); `detailed`: every field.
   * `compact` (not a collector value): one line per record with time, severity, category and body, per
   * point with time, name and value, per span with time, name, kind, duration and status, cut to
   * `line_width`. Default basic.
   */
  verbosity: z.enum(['basic', 'normal', 'detailed', 'compact']).default('basic'),
  /** Characters per line for `compact`. Default: the terminal's width when stdout is one, else 160. */
  line_width: z.number().int().min(20).optional(),
  /** Accepted for compatibility with the collector's debug exporter; no effect (every batch is printed). */
  sampling_initial: z.number().int().min(0).optional(),
  /** Accepted for compatibility; no effect. */
  sampling_thereafter: z.number().int().min(0).optional(),
  /** Accepted for compatibility; no effect (output always goes to the exporter's stream). */
  use_internal_logger: z.boolean().optional(),
});

export type DebugExporterConfig = z.output<typeof debugExporterConfigSchema>;

interface Formats {
  logs: (batch: SignalBatch) => string;
  metrics: (points: readonly MetricPoint[], partitionId: string) => string;
  traces: (spans: readonly SpanRecord[], partitionId: string) => string;
}

/**
 * Prints batches as text: the log records, then the metric points, then the spans, each signal's part
 * only when it has items (an empty batch prints the logs summary, as before). A batch is acknowledged once
 * the stream's write callback reported it written (handed to the OS for stdout), so the exporter applies
 * the stream's own backpressure.
 */
export function createDebugExporter(config: DebugExporterConfig, stream: Writable = process.stdout): SignalConsumer {
  const width = () =>
    config.line_width ??
    ((stream as { isTTY?: boolean; columns?: number }).isTTY ? (stream as { columns?: number }).columns : undefined) ??
    DEFAULT_LINE_WIDTH;
  const formats: Formats =
    config.verbosity === 'detailed'
      ? { logs: formatDetailed, metrics: signals.formatMetricsDetailed, traces: signals.formatTracesDetailed }
      : config.verbosity === 'normal'
        ? { logs: formatNormal, metrics: signals.formatMetricsNormal, traces: signals.formatTracesNormal }
        : config.verbosity === 'compact'
          ? {
              logs: (batch) => formatCompact(batch, width()),
              metrics: (points) => signals.formatMetricsCompact(points, width()),
              traces: (spans) => signals.formatTracesCompact(spans, width()),
            }
          : { logs: formatBasic, metrics: signals.formatMetricsBasic, traces: signals.formatTracesBasic };
  const format = (batch: SignalBatch): string => {
    const partition = batch.source.partitionId;
    let text = batch.records.length > 0 || batchItemCount(batch) === 0 ? formats.logs(batch) : '';
    if (batch.metrics?.length) text += formats.metrics(batch.metrics, partition);
    if (batch.spans?.length) text += formats.traces(batch.spans, partition);
    return text;
  };
  return {
    consume(batch: SignalBatch, signal?: AbortSignal): Promise<void> {
      if (signal?.aborted) return Promise.reject(signal.reason);
      const text = format(batch);
      return new Promise((resolve, reject) => stream.write(text, (error) => (error ? reject(error) : resolve())));
    },
  };
}

/** A `debug` exporter factory writing to `stream` (tests inject one; the CLI uses stdout). */
export function createDebugExporterFactory(stream: Writable = process.stdout): ExporterFactory<DebugExporterConfig> {
  return {
    type: 'debug',
    stability: 'development',
    signals: SIGNALS,
    configSchema: debugExporterConfigSchema,
    createDefaultConfig: () => ({ verbosity: 'basic' }),
    configWarnings: (config) =>
      (['sampling_initial', 'sampling_thereafter', 'use_internal_logger'] as const)
        .filter((key) => config[key] !== undefined)
        .map((key) => `${key}: ignored; every batch is printed to stdout`),
    create: async (_settings, config) => createDebugExporter(config, stream),
  };
}

/** The `debug` exporter, printing to stdout. */
export const debugExporterFactory = createDebugExporterFactory();
