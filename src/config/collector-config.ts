import { z } from 'zod';
import { telemetrySchema } from './telemetry-config.ts';

export { DEFAULT_METRICS_ADDRESS } from './telemetry-config.ts';

const componentIds = z.array(z.string().min(1));

/** One pipeline: receivers → processors (in order) → fan-out to every exporter. */
const pipelineSchema = z.strictObject({
  /** Receiver ids feeding this pipeline. At least one. */
  receivers: componentIds.min(1, 'a pipeline needs at least one receiver'),
  /** Processor ids, applied in order. Default none. */
  processors: componentIds.default([]),
  /** Exporter ids; each batch goes to all of them. At least one. */
  exporters: componentIds.min(1, 'a pipeline needs at least one exporter'),
});

/** `service`: which extensions run, the pipelines, and the collector's own telemetry. */
export const serviceSchema = z.strictObject({
  /** Extension ids to start (health_check, ...). Default none. */
  extensions: componentIds.default([]),
  /**
   * Pipelines by id: `logs`, `metrics`, `traces`, or `<signal>/<name>`; the signal is the type part. At least
   * one. A receiver listed by pipelines of several signals is one instance (partitions read once).
   */
  pipelines: z
    .record(z.string(), pipelineSchema)
    .refine((p) => Object.keys(p).length > 0, 'define at least one pipeline, e.g. logs'),
  telemetry: telemetrySchema,
});

/**
 * The top level of a collector config. Component sections are maps from component id (`type[/name]`)
 * to that component's own section, validated later by its factory's schema.
 */
export const collectorConfigSchema = z.strictObject({
  receivers: z
    .record(z.string(), z.unknown())
    .refine((r) => Object.keys(r).length > 0, 'configure at least one receiver'),
  exporters: z
    .record(z.string(), z.unknown())
    .refine((e) => Object.keys(e).length > 0, 'configure at least one exporter'),
  processors: z.record(z.string(), z.unknown()).default({}),
  extensions: z.record(z.string(), z.unknown()).default({}),
  /** Accepted for compatibility with collector configs; this distribution has no connectors. */
  connectors: z.record(z.string(), z.unknown()).optional(),
  service: serviceSchema,
});

export type CollectorConfig = z.output<typeof collectorConfigSchema>;
export type ServiceConfig = z.output<typeof serviceSchema>;
export type PipelineConfig = z.output<typeof pipelineSchema>;
export type { TelemetryConfig } from './telemetry-config.ts';
