// The `file` exporter's config section (file-exporter.ts is the exporter): what `validate` needs.
import { z } from 'zod';

/** Rotate at this size when `rotation` is set. 100 MiB, as the collector. */
export const DEFAULT_ROTATION_MAX_MEGABYTES = 100;
/** Rotated files kept when `rotation` is set. 100, as the collector. */
export const DEFAULT_ROTATION_MAX_BACKUPS = 100;

const rotationSchema = z.strictObject({
  /** Size at which the file is rotated. Default 100 MiB (mebibytes). */
  max_megabytes: z.number().positive().default(DEFAULT_ROTATION_MAX_MEGABYTES),
  /** Rotated files older than this many days are deleted. Default 0 (no age limit). */
  max_days: z.number().int().min(0).default(0),
  /** Rotated files kept. Default 100; 0 keeps all. */
  max_backups: z.number().int().min(0).default(DEFAULT_ROTATION_MAX_BACKUPS),
  /** Name rotated files with local time instead of UTC. Default false. */
  localtime: z.boolean().default(false),
});

/** The `file` exporter's section (the collector's keys; `sync` is ours). */
export const fileExporterConfigSchema = z.strictObject({
  /** File to append to; its directory is created. Required. */
  path: z.string().min(1, 'required: the file to write to'),
  /**
   * `json`: one OTLP/JSON export request per line (logs, metrics and traces requests alike; the top-level key,
   * `resourceLogs`, `resourceMetrics` or `resourceSpans`, tells them apart). `proto`: each request as protobuf,
   * prefixed by its length (4 bytes, big-endian); nothing marks its signal. Default json.
   */
  format: z.enum(['json', 'proto']).default('json'),
  /** Size-based rotation; absent: the file grows without bound. */
  rotation: rotationSchema.optional(),
  /**
   * fsync after every batch before acknowledging it (survives power loss). false: acknowledge once written to the OS.
   * Default true.
   */
  sync: z.boolean().default(true),
});

export type FileExporterConfig = z.output<typeof fileExporterConfigSchema>;
