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
 * The young generation of `run`'s worker: 24 MiB (8 MiB semi-spaces). V8 gives a worker with a 1 GiB old
 * generation 48 MiB, and commits all of it while a backlog drains; young objects there are garbage within a
 * batch or survive to be promoted either way (events live about half a second from receive to export). At 32
 * partitions the smaller one took 15-25 MiB off peak RSS (streaming 236 vs 249-265 MiB, polling 266 vs 273-283,
 * 2026-11-28) with no CPU difference the pipeline bench could see, and fewer full collections (40 vs 45-48 per
 * drain): the pipeline thread allocates a quarter to a third less per event than when 24 MiB was first tried
 * (then +5-10 % CPU).
 */
export const WORKER_YOUNG_GENERATION_MIB = 24;
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
