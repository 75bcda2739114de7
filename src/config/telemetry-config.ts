import { z } from 'zod';

/** Where the Prometheus self-metrics endpoint listens by default (the collector's own default port). */
export const DEFAULT_METRICS_ADDRESS = '127.0.0.1:8888';
const DEFAULT_METRICS_HOST = '127.0.0.1';
const DEFAULT_METRICS_PORT = 8888;

const HOST_PORT = /^(\[[0-9a-fA-F:]+\]|[^\s:[\]]*):\d{1,5}$/;

/** Keys of the collector's telemetry sections that parse here but change nothing (each gets a warning). */
const IGNORED = (why: string) => z.unknown().optional().describe(why);
const IGNORED_LOG_KEYS = [
  'development',
  'disable_caller',
  'disable_stacktrace',
  'sampling',
  'error_output_paths',
  'initial_fields',
  'processors',
];
const IGNORED_PROMETHEUS_KEYS = [
  'without_units',
  'without_type_suffix',
  'without_scope_info',
  'with_resource_constant_labels',
  'translation_strategy',
];

/** The collector's pull reader: `pull: { exporter: { prometheus: { host, port } } }`. */
const prometheusExporter = z.strictObject({
  /** Interface to listen on. Default 127.0.0.1 (this distribution's default; the collector's is localhost). */
  host: z.string().min(1).default(DEFAULT_METRICS_HOST),
  /** Port; 0 picks a free one. Default 8888. */
  port: z.number().int().min(0).max(65_535).default(DEFAULT_METRICS_PORT),
  ...Object.fromEntries(IGNORED_PROMETHEUS_KEYS.map((k) => [k, IGNORED('prometheus exporter option')])),
});

const reader = z
  .strictObject({
    pull: z.strictObject({ exporter: z.strictObject({ prometheus: prometheusExporter }) }).optional(),
    /** Push readers (`periodic: { exporter: { otlp: ... } }`) are refused with a message, not as an unknown key. */
    periodic: z.unknown().optional(),
  })
  .superRefine((r, ctx) => {
    if (r.periodic !== undefined) {
      const message =
        'periodic (push) readers are not supported: the self-metrics are served for scraping; ' +
        'use pull: { exporter: { prometheus: { host, port } } }';
      ctx.addIssue({ code: 'custom', path: ['periodic'], message });
    } else if (r.pull === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'give pull: { exporter: { prometheus: { host, port } } }' });
    }
  });

const metrics = z
  .strictObject({
    /** Deprecated form of readers (kept): `host:port` of the Prometheus endpoint. Default 127.0.0.1:8888. */
    address: z.string().regex(HOST_PORT, 'must be host:port, e.g. 127.0.0.1:8888 or 0.0.0.0:8888').optional(),
    /** The collector's current form: one pull/prometheus reader. `[]` turns the endpoint off. */
    readers: z.array(reader).max(1, 'only one reader: this distribution serves one Prometheus endpoint').optional(),
    /** `none` turns the endpoint off; `basic`, `normal` and `detailed` all serve every metric. Default normal. */
    level: z.enum(['none', 'basic', 'normal', 'detailed']).default('normal'),
  })
  .superRefine((m, ctx) => {
    if (m.address !== undefined && m.readers !== undefined) {
      const message = 'give readers or address, not both (address is the older form of readers)';
      ctx.addIssue({ code: 'custom', path: ['address'], message });
    }
  });

const logs = z.strictObject({
  /** Lowest level written (any case; dpanic, panic and fatal mean error). Default info. */
  level: z
    .string()
    .default('info')
    .transform((l) => l.toLowerCase())
    .pipe(z.enum(['debug', 'info', 'warn', 'error', 'dpanic', 'panic', 'fatal'])),
  /** `json`: one JSON object per line; `console`: human-readable lines. Default json. */
  encoding: z.enum(['json', 'console']).default('json'),
  /** Where log lines go. Only stderr is supported (stdout belongs to the debug exporter). Default [stderr]. */
  output_paths: z.array(z.string()).optional(),
  ...Object.fromEntries(IGNORED_LOG_KEYS.map((k) => [k, IGNORED('logger option')])),
});

/**
 * `service.telemetry` in the collector's current layout (and the older `metrics.address`), normalized to
 * what the service uses: the log level and encoding, and the one metrics address (or level none). Keys
 * that parse but change nothing are listed in `warnings`, relative to `service.telemetry`.
 */
export const telemetrySchema = z
  .strictObject({
    logs: logs.prefault({}),
    metrics: metrics.prefault({}),
    /** The collector's own traces: this distribution emits none; accepted with a warning. */
    traces: z.unknown().optional(),
    /** Resource attributes of the collector's own telemetry. */
    resource: z.record(z.string(), z.union([z.string(), z.null()])).optional(),
  })
  .prefault({})
  .transform((t) => {
    const warnings = [...logsWarnings(t.logs), ...metricsWarnings(t.metrics)];
    if (t.traces !== undefined) warnings.push('traces: ignored; this distribution does not trace itself');
    if (t.resource !== undefined)
      warnings.push('resource: ignored for now; the self-metrics carry their own resource labels');
    const resource = t.resource ? { resource: t.resource } : {};
    return {
      logs: { level: logLevel(t.logs.level), encoding: t.logs.encoding },
      metrics: metricsEndpoint(t.metrics),
      ...resource,
      warnings,
    };
  });

type LogsInput = z.output<typeof logs>;
type MetricsInput = z.output<typeof metrics>;

/** zap's dpanic, panic and fatal have no counterpart here: they log at error. */
function logLevel(level: LogsInput['level']): 'debug' | 'info' | 'warn' | 'error' {
  return level === 'dpanic' || level === 'panic' || level === 'fatal' ? 'error' : level;
}

function logsWarnings(l: LogsInput): string[] {
  const out: string[] = [];
  for (const key of IGNORED_LOG_KEYS) {
    if ((l as Record<string, unknown>)[key] !== undefined)
      out.push(`logs.${key}: ignored; log lines are written as configured by level and encoding`);
  }
  const paths = l.output_paths;
  if (paths && (paths.length !== 1 || paths[0] !== 'stderr'))
    out.push('logs.output_paths: ignored; log lines always go to stderr');
  return out;
}

function metricsWarnings(m: MetricsInput): string[] {
  const prometheus: Record<string, unknown> = m.readers?.[0]?.pull?.exporter.prometheus ?? {};
  return IGNORED_PROMETHEUS_KEYS.filter((key) => prometheus[key] !== undefined).map(
    (key) =>
      `metrics.readers.0.pull.exporter.prometheus.${key}: ignored; names are served as listed in docs/configuration.md`,
  );
}

/** The one endpoint the service serves: the reader's host and port, else `address`; `readers: []` is off. */
function metricsEndpoint(m: MetricsInput): { address: string; level: MetricsInput['level'] } {
  if (m.readers?.length === 0) return { address: m.address ?? DEFAULT_METRICS_ADDRESS, level: 'none' };
  const prometheus = m.readers?.[0]?.pull?.exporter.prometheus;
  if (!prometheus) return { address: m.address ?? DEFAULT_METRICS_ADDRESS, level: m.level };
  const bare = prometheus.host as string;
  const host = bare.includes(':') && !bare.startsWith('[') ? `[${bare}]` : bare; // an IPv6 literal
  return { address: `${host}:${prometheus.port as number}`, level: m.level };
}

export type TelemetryConfig = z.output<typeof telemetrySchema>;
