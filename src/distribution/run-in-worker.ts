/**
 * Runs the CLI in a worker thread whose V8 heap is capped (`resourceLimits`), because a heap limit can
 * only be given to an isolate when it is created (heap-limit.ts says why the collector wants one). The
 * main thread stays small: it forwards SIGTERM and SIGINT to the worker, which handles them as `run`
 * always does, and exits with the worker's exit code. The worker's stdout and stderr reach the process's
 * own; Node delivers what the worker wrote before it reports the exit.
 */
import { Worker } from 'node:worker_threads';
import { EventEmitter } from 'node:events';
import { EXIT_FORCED_SIGINT, EXIT_FORCED_SIGTERM, EXIT_RUNTIME_FAILURE } from './exit-codes.ts';
import { HEAP_LIMIT_ENV, WORKER_YOUNG_GENERATION_MIB } from './heap-limit.ts';
import { redactError } from '../component/redact.ts';

/** What the main thread sends the worker: a signal the process received. */
export interface SignalMessage {
  readonly signal: NodeJS.Signals;
}

/**
 * The worker side: an emitter of the signals the main thread forwards over `port`. A signal that arrives
 * before anything listens (while the CLI still loads its config) ends the thread at once with 130 or 143,
 * as the signal would have ended a process that had not installed its handlers yet.
 */
export function forwardedSignals(
  port: { on(event: 'message', listener: (message: SignalMessage | undefined) => void): unknown },
  exit: (code: number) => void,
): EventEmitter {
  const signals = new EventEmitter();
  port.on('message', (message: SignalMessage | undefined) => {
    const signal = message?.signal;
    if (signal !== 'SIGTERM' && signal !== 'SIGINT') return;
    if (signals.listenerCount(signal) === 0) exit(signal === 'SIGINT' ? EXIT_FORCED_SIGINT : EXIT_FORCED_SIGTERM);
    else signals.emit(signal, signal);
  });
  return signals;
}

export interface WorkerRunOptions {
  /** Where the main thread's diagnostics go (one JSON line each). Default process.stderr. */
  readonly writeErr?: (line: string) => void;
  /** Where SIGTERM and SIGINT arrive. Default process. */
  readonly signals?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
  /** The worker's module. Default cli-worker next to this file. */
  readonly entry?: URL;
}

/**
 * Runs `argv` through the CLI's `main` in a worker with an old-generation ceiling of `heapLimitMib` MiB; resolves with
 * its exit code.
 */
export function runInWorker(
  argv: readonly string[],
  heapLimitMib: number,
  options: WorkerRunOptions = {},
): Promise<number> {
  const writeErr = options.writeErr ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const signals = options.signals ?? process;
  // In dist/ this file is .js and so is its sibling. Run from the sources (under tsx), the worker has to
  // install tsx's loader itself before it imports TypeScript: Node 20 does not apply `--import` hooks
  // to a worker's entry, nor does the thread inherit the main thread's register().
  const fromSource = import.meta.url.endsWith('.ts');
  const resourceLimits = {
    maxOldGenerationSizeMb: heapLimitMib,
    maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MIB,
  };
  const workerOptions = { workerData: { argv: [...argv] }, resourceLimits };
  let worker: Worker;
  if (options.entry) {
    worker = new Worker(options.entry, workerOptions);
  } else if (fromSource) {
    const api = JSON.stringify(import.meta.resolve('tsx/esm/api'));
    const entry = JSON.stringify(new URL('./cli-worker.ts', import.meta.url).href);
    worker = new Worker(`import(${api}).then(({ register }) => { register(); return import(${entry}); })`, {
      ...workerOptions,
      eval: true,
    });
  } else {
    worker = new Worker(new URL('./cli-worker.js', import.meta.url), workerOptions);
  }
  const forward = (signal: NodeJS.Signals) => worker.postMessage({ signal } satisfies SignalMessage);
  signals.on('SIGTERM', forward);
  signals.on('SIGINT', forward);
  return new Promise((resolve) => {
    let failed = false;
    worker.on('error', (error: Error & { code?: string }) => {
      failed = true;
      const line = { level: 'error', ts: new Date().toISOString() } as Record<string, unknown>;
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        line.msg =
          `out of memory: the collector's heap reached its limit of ${heapLimitMib} MiB; raise ` +
          `${HEAP_LIMIT_ENV}, or lower prefetch_count and batch sizes`;
      } else {
        line.msg = 'fatal error';
        line.error = redactError(error);
      }
      writeErr(JSON.stringify(line));
    });
    worker.on('exit', (code) => {
      signals.off('SIGTERM', forward);
      signals.off('SIGINT', forward);
      resolve(failed && code === 0 ? EXIT_RUNTIME_FAILURE : code);
    });
  });
}
