import type { ServerResponse } from 'node:http';
import { getHeapSnapshot } from 'node:v8';
import { pipeline } from 'node:stream/promises';
import { redactError } from '../../component/redact.ts';
import type { Logger } from '../../component/logger.ts';
import { listenHttp, type HttpListener } from '../../telemetry/http-listener.ts';
import { startAllocationProfile } from './allocation-profiler.ts';
import { startCpuProfile } from './cpu-profiler.ts';

/** Where pprof listens by default: the collector's pprof port, on loopback. */
export const DEFAULT_PPROF_ENDPOINT = 'localhost:1777';
/** Length of a CPU profile when `seconds` is not given, as in Go's pprof. 30 s. */
export const DEFAULT_PROFILE_SECONDS = 30;
/** Longest CPU profile served. 300 s. */
export const MAX_PROFILE_SECONDS = 300;

/** A profile taken over `seconds`: what it is called in messages, how it starts, and its file name. */
interface ProfileKind {
  readonly what: string;
  /** The article before `what`. */
  readonly a: string;
  readonly start: () => Promise<{ stop(): Promise<unknown> }>;
  readonly file: string;
  readonly extension: string;
}

const PROFILES = new Map<string, ProfileKind>([
  [
    '/debug/pprof/profile',
    { what: 'CPU profile', a: 'a', start: startCpuProfile, file: 'cpu', extension: 'cpuprofile' },
  ],
  [
    '/debug/pprof/allocs',
    { what: 'allocation profile', a: 'an', start: startAllocationProfile, file: 'allocs', extension: 'heapprofile' },
  ],
]);
const PROFILE_LIMITS = `default ${DEFAULT_PROFILE_SECONDS}, at most ${MAX_PROFILE_SECONDS}`;
const INDEX = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>pprof · otelcol-azure-eventhub</title></head>
<body style="font:14px system-ui,sans-serif;margin:1rem">
<h1 style="font-size:1.2rem">Profiles of this Node.js process</h1>
<ul>
<li><a href="/debug/pprof/profile?seconds=10">/debug/pprof/profile?seconds=N</a>: a V8 CPU profile of the next N seconds
(${PROFILE_LIMITS}), a <code>.cpuprofile</code> for Chrome DevTools or VS Code.</li>
<li><a href="/debug/pprof/allocs?seconds=10">/debug/pprof/allocs?seconds=N</a>: where the next N seconds allocate
(${PROFILE_LIMITS}), objects already freed included, sampled every 32 KiB: a <code>.heapprofile</code> for the
DevTools Memory tab. What a busy collector allocates per event is what its garbage collector pays for.</li>
<li><a href="/debug/pprof/heap">/debug/pprof/heap</a>: a V8 heap snapshot (<code>.heapsnapshot</code>, for the DevTools
Memory tab). It pauses the process while it is taken, needs about as much memory again as the heap, and holds
everything in memory, secrets included: keep this endpoint on loopback.</li>
</ul></body></html>
`;

/**
 * The pprof equivalent for Node: a V8 CPU profile (`/debug/pprof/profile?seconds=N`), an allocation profile
 * (`/debug/pprof/allocs?seconds=N`) and a heap snapshot (`/debug/pprof/heap`), on demand. These are not Go's
 * pprof protobuf format; Chrome DevTools, VS Code and speedscope open them. One CPU profile and one allocation
 * profile at a time (a second request gets 409). `abort` ends a running profile early (at shutdown), which
 * then returns what it sampled.
 */
export async function startPprofServer(endpoint: string, logger: Logger, abort: AbortSignal): Promise<HttpListener> {
  /** The kinds of profile being taken (one of each at a time). */
  const running = new Set<string>();
  return listenHttp(endpoint, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://pprof');
    if (req.method !== 'GET') return text(res, 405, 'only GET\n');
    const path = url.pathname.replace(/\/+$/, '');
    if (path === '' || path === '/debug/pprof') {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.setHeader('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
      return res.end(INDEX);
    }
    const kind = PROFILES.get(path);
    if (kind !== undefined) {
      const raw = url.searchParams.get('seconds');
      const seconds = raw === null ? DEFAULT_PROFILE_SECONDS : Number(raw);
      if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_PROFILE_SECONDS)
        return text(res, 400, `seconds must be a number above 0 and at most ${MAX_PROFILE_SECONDS}\n`);
      if (running.has(path))
        return text(res, 409, `${kind.a} ${kind.what} is already being taken; try again when it is done\n`);
      running.add(path);
      void sendProfile(res, seconds, abort, kind)
        .catch((error: unknown) => fail(res, logger, kind.what, error))
        .finally(() => running.delete(path));
      return;
    }
    if (path === '/debug/pprof/heap') {
      void heapSnapshot(res).catch((error: unknown) => fail(res, logger, 'heap snapshot', error));
      return;
    }
    text(res, 404, 'not found; see /debug/pprof/ (profile?seconds=N, allocs?seconds=N, heap)\n');
  });
}

/** Takes a profile of `kind` for `seconds` and sends it as `<file>-<time>.<extension>`. */
async function sendProfile(res: ServerResponse, seconds: number, abort: AbortSignal, kind: ProfileKind): Promise<void> {
  const profiler = await kind.start();
  const hungUp = await waitOut(res, seconds, abort);
  const profile = await profiler.stop();
  if (hungUp) return;
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-disposition', `attachment; filename="${kind.file}-${stamp()}.${kind.extension}"`);
  res.end(JSON.stringify(profile));
}

/**
 * Waits out a profile: until the deadline, shutdown, or the client hanging up (then nobody wants the
 * profile). True when the client hung up.
 */
async function waitOut(res: ServerResponse, seconds: number, abort: AbortSignal): Promise<boolean> {
  let hungUp = false;
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
  return hungUp;
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
