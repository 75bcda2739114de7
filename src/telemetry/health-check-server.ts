import { redact } from '../component/redact.ts';
import type { HealthState } from './health-state.ts';
import { listenHttp, type HttpListener } from './internal/http-listener.ts';

/** Where the health endpoint listens by default (the collector's health_check default port). */
export const DEFAULT_HEALTH_ENDPOINT = '127.0.0.1:13133';

export interface HealthCheckServerOptions {
  /** `host:port`; port 0 picks a free port. Default 127.0.0.1:13133. */
  readonly endpoint?: string;
  /** Path answering the probe, besides `/health`. Default `/`. */
  readonly path?: string;
}

/**
 * Serves the health state: `200` with `{"status":"ready",...}` when every receiver is ready, `503` with
 * the per-receiver status and reason otherwise (`starting`, `unhealthy`, `stopping`). Both `path` and
 * `/health` answer; Kubernetes probes can use either. Error texts pass through `redact`.
 */
export async function startHealthCheckServer(state: HealthState, options: HealthCheckServerOptions = {}): Promise<HttpListener> {
  const paths = new Set([options.path ?? '/', '/health']);
  return listenHttp(options.endpoint ?? DEFAULT_HEALTH_ENDPOINT, (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !paths.has(path)) {
      res.statusCode = 404;
      res.end();
      return;
    }
    const report = state.report();
    res.statusCode = report.status === 'ready' ? 200 : 503;
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'no-store');
    res.end(req.method === 'HEAD' ? undefined : `${redact(JSON.stringify(report))}\n`);
  });
}
