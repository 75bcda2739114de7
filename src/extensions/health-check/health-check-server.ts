import { redact } from '../../component/redact.ts';
import type { HealthState } from '../../telemetry/health-state.ts';
import type { LivenessReport } from './liveness.ts';
import { listenHttp, type HttpListener } from '../../telemetry/http-listener.ts';

/** Where the health endpoint listens by default (the collector's health_check default port). */
export const DEFAULT_HEALTH_ENDPOINT = '127.0.0.1:13133';

export interface HealthCheckServerOptions {
  /** `host:port`; port 0 picks a free port. Default 127.0.0.1:13133. */
  readonly endpoint?: string;
  /** Path answering the readiness probe, besides `/health` and `/readyz`. Default `/`. */
  readonly path?: string;
  /** Path answering the liveness probe. Default `/livez`. */
  readonly livenessPath?: string;
  /** The liveness report, read on every liveness probe. Default: always live (the event loop answered). */
  readonly liveness?: () => LivenessReport;
}

/** Where the liveness probe answers by default. */
export const DEFAULT_LIVENESS_PATH = '/livez';

/**
 * Serves the health state (readiness): `200` with `{"status":"ready",...}` when every receiver is ready, `503`
 * with the per-receiver status and reason otherwise (`starting`, `degraded`, `unhealthy`, `stopping`). `path`,
 * `/health` and `/readyz` answer it. `livenessPath` (`/livez`) answers liveness: `200 {"status":"live"}` unless
 * the process is wedged (liveness.ts), never for an outage outside it. Error texts pass through `redact`.
 */
export async function startHealthCheckServer(
  state: HealthState,
  options: HealthCheckServerOptions = {},
): Promise<HttpListener> {
  const livenessPath = options.livenessPath ?? DEFAULT_LIVENESS_PATH;
  const paths = new Set([options.path ?? '/', '/health', '/readyz']);
  paths.delete(livenessPath);
  return listenHttp(options.endpoint ?? DEFAULT_HEALTH_ENDPOINT, (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if ((req.method !== 'GET' && req.method !== 'HEAD') || (!paths.has(path) && path !== livenessPath)) {
      res.statusCode = 404;
      res.end();
      return;
    }
    const report = path === livenessPath ? (options.liveness?.() ?? { status: 'live' }) : state.report();
    res.statusCode = report.status === 'ready' || report.status === 'live' ? 200 : 503;
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'no-store');
    res.end(req.method === 'HEAD' ? undefined : `${redact(JSON.stringify(report))}\n`);
  });
}
