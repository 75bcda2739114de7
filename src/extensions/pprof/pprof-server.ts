import type { ServerResponse } from 'node:http';
import { getHeapSnapshot } from 'node:v8';
import { pipeline } from 'node:stream/promises';
import { redactError } from '../../component/redact.ts';
import type { Logger } from '../../component/logger.ts';
import { listenHttp, type HttpListener } from '../../telemetry/http-listener.ts';
import { startCpuProfile } from './cpu-profiler.ts';

/** Where pprof listens by default: the collector's pprof port, on loopback. */
export const DEFAULT_PPROF_ENDPOINT = 'localhost:1777';
/** Length of a CPU profile when `seconds` is not given, as in Go's pprof. 30 s. */
export const DEFAULT_PROFILE_SECONDS = 30;
/** Longest CPU profile served. 300 s. */
export const MAX_PROFILE_SECONDS = 300;

const PROFILE_LIMITS = `default ${DEFAULT_PROFILE_SECONDS}, at most ${MAX_PROFILE_SECONDS}`;
const INDEX = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>pprof · otelcol-azure-eventhub</title></head>
<body style="font:14px system-ui,sans-serif;margin:1rem">
<h1 style="font-size:1.2rem">Profiles of this Node.js process</h1>
<ul>
<li><a href="/debug/pprof/profile?seconds=10">/debug/pprof/profile?seconds=N</a>: a V8 CPU profile of the next N seconds
(${PROFILE_LIMITS}), a <code>.cpuprofile</code> for Chrome DevTools or VS Code.</li>
<li><a href="/debug/pprof/heap">/debug/pprof/heap</a>: a V8 heap snapshot (<code>.heapsnapshot</code>, for the DevTools
Memory tab). It pauses the process while it is taken, needs about as much memory again as the heap, and holds
everything in memory, secrets included: keep this endpoint on loopback.</li>
</ul></body></html>
`;

/**
 * The pprof equivalent for Node: a V8 CPU profile (`/debug/pprof/profile?seconds=N`) and a heap snapshot
 * (`/debug/pprof/heap`), on demand. These are not Go's pprof protobuf format; Chrome DevTools, VS Code and
 * speedscope open them. One CPU profile at a time (a second request gets 409). `abort` ends a running profile
 * early (at shutdown), which then returns what it sampled.
 */
export async function startPprofServer(endpoint: string, logger: Logger, abort: AbortSignal): Promise<HttpListener> {
  let profiling = false;
  return listenHttp(endpoint, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://pprof');
    if (req.method !== 'GET') return text(res, 405, 'only GET\n');
    const path = url.pathname.replace(/\/+$/, '');
    if (path === '' || path === '/debug/pprof') {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.setHeader('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
      return res.end(INDEX);
    }
    if (path === '/debug/pprof/profile') {
      const raw = url.searchParams.get('seconds');
      const seconds = raw === null ? DEFAULT_PROFILE_SECONDS : Number(raw);
      if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_PROFILE_SECONDS)
        return text(res, 400, `seconds must be a number above 0 and at most ${MAX_PROFILE_SECONDS}\n`);
      if (profiling) return text(res, 409, 'a CPU profile is already being taken; try again when it is done\n');
      profiling = true;
      void cpuProfile(res, seconds, abort)
        .catch((error: unknown) => fail(res, logger, 'CPU profile', error))
        .finally(() => (profiling = false));
      return;
    }
    if (path === '/debug/pprof/heap') {
      void heapSnapshot(res).catch((error: unknown) => fail(res, logger, 'heap snapshot', error));
      return;
    }
    text(res, 404, 'not found; see /debug/pprof/ (profile?seconds=N, heap)\n');
  });
}

async function cpuProfile(res: ServerResponse, seconds: number, abort: AbortSignal): Promise<void> {
  const profiler = await startCpuProfile();
  let hungUp = false;
  // Ends at the deadline, at shutdown, or when the client hangs up (then nobody wants the profile).
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, seconds * 1000);
    const onClose = () => {
      hungUp = true;
      done();
    };
    res.once('close', onClose);
    abort.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      res.off('close', onClose);
      abort.removeEventListener('abort', done);
      resolve();
    }
  });
  const profile = await profiler.stop();
  if (hungUp) return;
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-disposition', `attachment; filename="cpu-${stamp()}.cpuprofile"`);
  res.end(JSON.stringify(profile));
}

async function heapSnapshot(res: ServerResponse): Promise<void> {
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-disposition', `attachment; filename="heap-${stamp()}.heapsnapshot"`);
  await pipeline(getHeapSnapshot(), res);
}

function fail(res: ServerResponse, logger: Logger, what: string, error: unknown): void {
  logger.warn(`pprof ${what} failed`, { error: redactError(error) });
  if (!res.headersSent) text(res, 500, `${what} failed: ${redactError(error)}\n`);
  else res.destroy();
}

function text(res: ServerResponse, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.end(body);
}

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}
