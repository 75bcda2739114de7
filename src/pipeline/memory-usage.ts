import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';

/**
 * What the memory limiter measures: the V8 heap in use plus the memory of Buffers and other objects
 * held outside the heap (`heapUsed + external` of `process.memoryUsage()`), for the thread that runs
 * the pipeline. It is Node's counterpart of the Go runtime's `HeapAlloc`, which the collector's
 * memory_limiter reads: live data plus garbage not yet collected, so it falls after a collection.
 * RSS is not used because it does not fall when V8 keeps freed pages committed, which could refuse
 * data for minutes with nothing left to free.
 */
export function readMemoryUsageBytes(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

/** Where the total that percentages refer to comes from. */
export type MemoryTotalSource = 'cgroup' | 'heap_limit';

export interface MemoryTotal {
  readonly bytes: number;
  readonly source: MemoryTotalSource;
}

// cgroup v1 reports "no limit" as a huge number (about 2^63 rounded to the page size).
const NO_LIMIT_BYTES = 2 ** 60;

/** The container's memory limit: cgroup v2 `memory.max`, else cgroup v1 `memory.limit_in_bytes`. */
export function readCgroupLimitBytes(
  readFile: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): number | undefined {
  const fromNode = (process as { constrainedMemory?: () => number | undefined }).constrainedMemory?.();
  if (typeof fromNode === 'number' && fromNode > 0 && fromNode < NO_LIMIT_BYTES) return fromNode;
  for (const path of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    try {
      const text = readFile(path).trim();
      const bytes = Number(text);
      if (/^\d+$/.test(text) && bytes > 0 && bytes < NO_LIMIT_BYTES) return bytes;
    } catch {
      // Not this cgroup version, or not Linux.
    }
  }
  return undefined;
}

/**
 * The total that `limit_percentage` and `spike_limit_percentage` are fractions of: the smaller of the
 * container's memory limit (when one is set) and V8's heap size limit. The Go collector takes the
 * cgroup limit or the host's memory; here the heap limit is the ceiling V8 aborts at (the worker's
 * `OTELCOL_HEAP_LIMIT_MIB` under `run`), so a percentage of a larger container would never be reached.
 */
export function readMemoryTotal(cgroupBytes: number | undefined = readCgroupLimitBytes()): MemoryTotal {
  const heapLimit = getHeapStatistics().heap_size_limit;
  if (cgroupBytes !== undefined && cgroupBytes < heapLimit) return { bytes: cgroupBytes, source: 'cgroup' };
  return { bytes: heapLimit, source: 'heap_limit' };
}
