import type { ServerResponse } from 'node:http';
import { redactError } from '../../component/redact.ts';
import type { Logger } from '../../component/logger.ts';
import type { ServiceInfo } from '../extension-factory.ts';
import { listenHttp, type HttpListener } from '../../telemetry/http-listener.ts';
import { eventhubzBody, type EventHubzReceiver } from './eventhubz-page.ts';
import { page, ZPAGES } from './html.ts';
import { extensionzBody, featurezBody, pipelinezBody, servicezBody } from './service-pages.ts';

/** Where zpages listen by default: the collector's zpages port, on loopback. */
export const DEFAULT_ZPAGES_ENDPOINT = 'localhost:55679';
/** Deadline of the checkpoint-store listing behind `/debug/eventhubz`, per receiver. 5000 ms. */
export const OWNERSHIP_READ_TIMEOUT_MS = 5_000;

/** What the pages read: filled in by the zpages extension as the service builds. */
export interface ZPagesSource {
  info(): ServiceInfo | undefined;
  receivers(): readonly EventHubzReceiver[];
  readonly version: string;
}

/**
 * Serves the zpages: GET (or HEAD) on `/debug/servicez`, `/debug/pipelinez`, `/debug/extensionz`,
 * `/debug/featurez` and `/debug/eventhubz`; `/` and `/debug` redirect to servicez. Pages are HTML with
 * inline CSS and SVG only, and the Content-Security-Policy forbids anything else, so nothing is fetched
 * from outside. `?refresh=N` adds a meta refresh of N seconds.
 */
export async function startZPagesServer(source: ZPagesSource, endpoint: string, logger: Logger): Promise<HttpListener> {
  return listenHttp(endpoint, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://zpages');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'only GET and HEAD\n');
    if (url.pathname === '/' || url.pathname === '/debug' || url.pathname === '/debug/') {
      res.statusCode = 302;
      res.setHeader('location', '/debug/servicez');
      return res.end();
    }
    const known = ZPAGES.find(([href]) => href === url.pathname);
    if (!known) {
      const list = ZPAGES.map(([href]) => href).join(', ');
      return send(res, 404, 'text/plain', `not found; zpages are ${list}\n`);
    }
    const refresh = Number(url.searchParams.get('refresh') ?? '') || undefined;
    render(known[0], source)
      .then((body) => {
        const html = req.method === 'HEAD' ? '' : page(known[1], known[0], body, refresh);
        send(res, 200, 'text/html; charset=utf-8', html);
      })
      .catch((error: unknown) => {
        logger.warn('zpage failed', { path: url.pathname, error: redactError(error) });
        send(res, 500, 'text/plain', `${url.pathname} failed: ${redactError(error)}\n`);
      });
  });
}

async function render(path: string, source: ZPagesSource): Promise<string> {
  const info = source.info();
  const now = Date.now();
  switch (path) {
    case '/debug/servicez':
      return servicezBody(info, { version: source.version, now });
    case '/debug/pipelinez':
      return pipelinezBody(info);
    case '/debug/extensionz':
      return extensionzBody(info);
    case '/debug/featurez':
      return featurezBody(info);
    default:
      return eventhubzBody(source.receivers(), { ownershipTimeoutMs: OWNERSHIP_READ_TIMEOUT_MS, now });
  }
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.statusCode = status;
  res.setHeader('content-type', type);
  res.setHeader('cache-control', 'no-store');
  res.setHeader('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:");
  res.setHeader('x-content-type-options', 'nosniff');
  res.end(body);
}
