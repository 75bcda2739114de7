import { randomUUID } from 'node:crypto';
import type { Meter } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { listenHttp } from './http-listener.ts';
import { LiveGaugesPrometheusExporter } from './internal/live-gauges-prometheus-exporter.ts';

/** Instrumentation scope of the distribution's own metrics. */
export const SELF_METRICS_SCOPE = 'otelcol-azure-eventhub';

export interface MetricsEndpointOptions {
  /** `host:port` to listen on; port 0 picks a free port. Default 127.0.0.1:8888. */
  readonly address?: string;
  /** `service.name` on `target_info`. Default otelcol-azure-eventhub. */
  readonly serviceName?: string;
  /** `service.version` on `target_info`. Default unset. */
  readonly serviceVersion?: string;
  /** `service.instance.id` on `target_info`. Default a random UUID per endpoint, as the collector. */
  readonly serviceInstanceId?: string;
}

export interface MetricsEndpoint {
  readonly meter: Meter;
  /** The `service.instance.id` this endpoint reports. */
  readonly serviceInstanceId: string;
  /** The bound host and port (the real port when 0 was asked for). */
  readonly host: string;
  readonly port: number;
  /** Stops the HTTP server and the meter provider. Idempotent. */
  shutdown(): Promise<void>;
}

/**
 * The self-telemetry endpoint: an `@opentelemetry/sdk-metrics` MeterProvider read by the Prometheus
 * exporter, served at `GET /metrics`. The exporter's own server is not used because it cannot listen
 * on port 0 (it treats 0 as "use the default 9464"); its request handler is mounted on ours instead.
 * Observable instruments are read at scrape time, so a scrape always sees the receiver's current state;
 * a gauge series the callbacks no longer observe (a partition given away) disappears.
 */
export async function startMetricsEndpoint(options: MetricsEndpointOptions = {}): Promise<MetricsEndpoint> {
  const serviceInstanceId = options.serviceInstanceId ?? randomUUID();
  const exporter = new LiveGaugesPrometheusExporter({ preventServerStart: true, withoutScopeInfo: true });
  const provider = new MeterProvider({
    readers: [exporter],
    resource: resourceFromAttributes({
      'service.name': options.serviceName ?? SELF_METRICS_SCOPE,
      'service.instance.id': serviceInstanceId,
      ...(options.serviceVersion ? { 'service.version': options.serviceVersion } : {}),
    }),
  });
  let listener;
  try {
    listener = await listenHttp(options.address ?? '127.0.0.1:8888', (req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && path === '/metrics') exporter.getMetricsRequestHandler(req, res);
      else {
        res.statusCode = 404;
        res.end('not found; metrics are at /metrics\n');
      }
    });
  } catch (error) {
    await provider.shutdown().catch(() => {});
    throw error;
  }
  const bound = listener;
  let stopping: Promise<void> | undefined;
  return {
    meter: provider.getMeter(SELF_METRICS_SCOPE),
    serviceInstanceId,
    host: bound.host,
    port: bound.port,
    shutdown() {
      stopping ??= (async () => {
        await bound.close();
        await provider.shutdown().catch(() => {});
      })();
      return stopping;
    },
  };
}
