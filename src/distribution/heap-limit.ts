/**
 * How much V8 heap the collector's `run` may use. Node sizes its heap from the machine (about 4 GiB on a
 * large host) and V8 then lets the old generation grow up to four times the live data between full
 * collections: draining a backlog, the receiver's RSS climbs far above what it holds (measured in
 * docs/benchmarks.md). V8 only takes a heap limit when an isolate is created, so `run` starts the service
 * in a worker thread created with `resourceLimits` (see run-in-worker.ts). Under a 1 GiB ceiling V8 lets
 * the old generation grow by at most about 1.6× the live data instead of 4× (its growing factor scales
 * with the limit up to 2 GiB), at the cost of more frequent full collections (docs/benchmarks.md).
 */
import { UsageError } from './usage-error.ts';

/** The old-generation ceiling of `run` when nothing says otherwise. 1024 MiB. */
export const DEFAULT_HEAP_LIMIT_MIB = 1024;
/**
 * The young generation of `run`'s worker: 12 MiB (4 MiB semi-spaces). V8 gives a worker with a 1 GiB old
 * generation 48 MiB and commits all of it while a backlog drains. Smaller also means fewer full collections:
 * V8 starts marking the old generation once its slack falls below the young generation's capacity, and
 * counts against that slack the external memory (event bodies, socket reads, encoded and compressed
 * requests: several KB per event on the pipeline thread) allocated since the last full collection that no
 * young collection has freed yet. The pipeline thread allocates few objects per event, so with a large young
 * generation young collections were rare, dead buffers piled up between them, and a full collection of the
 * 32 MB heap followed every 0.2-0.3 s. Pipeline bench, 2026-11-28, 8 partitions, round by round against the
 * same round's SDK: 12 MiB, streaming CPU 1.55-2.29x (median 1.96, 12 rounds), polling 1.68-2.67x (median
 * 2.24); 24 MiB, streaming 1.90-2.46x (median 2.27, 8 rounds), polling 1.77-2.42x (median 2.22); at 32
 * partitions peak RSS 242-245 and 227-234 MiB against 249-258 and 237-244. 6 MiB cut further (39 full collections per
 * drain instead of 63-66, 229 MiB at 32 partitions) but cost polling, whose pipeline thread allocates more
 * objects per event, a young collection every few milliseconds (2.29-2.73x).
 */
export const WORKER_YOUNG_GENERATION_MIB = 12;
/** Environment variable that sets the ceiling in MiB; `0` runs on the main thread with Node's own sizing. */
export const HEAP_LIMIT_ENV = 'OTELCOL_HEAP_LIMIT_MIB';
/** The smallest ceiling accepted: below this the SDKs alone do not fit. 64 MiB. */
export const MIN_HEAP_LIMIT_MIB = 64;

export type HeapLimitChoice =
  | { readonly kind: 'worker'; readonly mib: number }
  /** `disabled`: the variable is 0; `node-flag`: the user set --max-old-space-size, which wins. */
  | { readonly kind: 'main'; readonly reason: 'disabled' | 'node-flag' };

/**
 * Where `run` runs: in a heap-limited worker (the default), or on the main thread when the variable is
 * `0` or Node already has a `--max-old-space-size` (on the command line or in NODE_OPTIONS).
 * Throws a UsageError for a value that is not a whole number of MiB (0, or at least 64).
 */
export function chooseHeapLimit(
  env: Readonly<Record<string, string | undefined>>,
  execArgv: readonly string[],
): HeapLimitChoice {
  const raw = env[HEAP_LIMIT_ENV]?.trim();
  let mib = DEFAULT_HEAP_LIMIT_MIB;
  if (raw !== undefined && raw !== '') {
    mib = Number(raw);
    if (!/^\d+$/.test(raw) || (mib !== 0 && mib < MIN_HEAP_LIMIT_MIB)) {
      throw new UsageError(
        `${HEAP_LIMIT_ENV} must be a whole number of MiB, 0 (Node's own heap sizing) or at least ` +
          `${MIN_HEAP_LIMIT_MIB}; got '${raw}'`,
      );
    }
  }
  const nodeFlag = /(^|\s)--max[-_]old[-_]space[-_]size(=|\s|$)/;
  if ([...execArgv, env.NODE_OPTIONS ?? ''].some((arg) => nodeFlag.test(arg)))
    return { kind: 'main', reason: 'node-flag' };
  if (mib === 0) return { kind: 'main', reason: 'disabled' };
  return { kind: 'worker', mib };
}
