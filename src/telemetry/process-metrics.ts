import type { Meter } from '@opentelemetry/api';
import { GCProfiler } from 'node:v8';

/** How often the allocation counter folds in the collections V8 reported. 1 000 ms. */
export const GC_HARVEST_INTERVAL_MS = 1_000;

interface GcStatistics {
  readonly statistics: readonly {
    readonly beforeGC: { readonly heapStatistics: { readonly usedHeapSize: number } };
    readonly afterGC: { readonly heapStatistics: { readonly usedHeapSize: number } };
  }[];
}

/**
 * Bytes allocated on the V8 heap since start, the counterpart of Go's `MemStats.TotalAlloc`: V8 keeps no
 * such counter, so it is the heap in use now plus everything collections freed, which a `GCProfiler`
 * reports per collection. The profiler keeps every record until stopped, so it is restarted every
 * `GC_HARVEST_INTERVAL_MS` (and at each read) to keep that bounded.
 */
class AllocationCounter {
  #profiler = new GCProfiler();
  #freedBytes = 0;
  #last = 0;
  readonly #timer: NodeJS.Timeout;

  constructor() {
    this.#profiler.start();
    this.#timer = setInterval(() => this.#harvest(), GC_HARVEST_INTERVAL_MS);
    this.#timer.unref();
  }

  read(): number {
    this.#harvest();
    // Monotonic: a collection that finished after the harvest is counted at the next one.
    this.#last = Math.max(this.#last, this.#freedBytes + process.memoryUsage().heapUsed);
    return this.#last;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#profiler.stop();
  }

  #harvest(): void {
    const data = this.#profiler.stop() as GcStatistics | undefined;
    this.#profiler = new GCProfiler();
    this.#profiler.start();
    for (const s of data?.statistics ?? []) {
      this.#freedBytes += Math.max(0, s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize);
    }
  }
}

/**
 * The collector's process metrics (its `service/internal/proctelemetry`), same names and units, read at
 * scrape time. Node counterparts of the Go runtime values: `heap_alloc_bytes` is the V8 heap in use,
 * `total_sys_memory_bytes` the V8 heap V8 obtained plus memory held outside it (Buffers), and
 * `total_alloc_bytes` is counted as above. `memory_rss`, `cpu_seconds` and `uptime` cover the whole
 * process; the heap values are the isolate that runs the pipeline (the worker thread under `run`).
 * Returns the function that stops the allocation counter.
 */
export function registerProcessMetrics(meter: Meter): () => void {
  const allocations = new AllocationCounter();
  meter
    .createObservableCounter('otelcol_process_uptime', { description: 'Uptime of the process', unit: 's' })
    .addCallback((r) => r.observe(process.uptime()));
  meter
    .createObservableCounter('otelcol_process_cpu_seconds', {
      description: 'Total CPU user and system time in seconds',
      unit: 's',
    })
    .addCallback((r) => {
      const cpu = process.cpuUsage();
      r.observe((cpu.user + cpu.system) / 1e6);
    });
  meter
    .createObservableGauge('otelcol_process_memory_rss', {
      description: 'Total physical memory (resident set size)',
      unit: 'By',
    })
    .addCallback((r) => r.observe(process.memoryUsage.rss()));
  meter
    .createObservableGauge('otelcol_process_runtime_heap_alloc_bytes', {
      description: 'Bytes of allocated heap objects (V8 heap in use)',
      unit: 'By',
    })
    .addCallback((r) => r.observe(process.memoryUsage().heapUsed));
  meter
    .createObservableCounter('otelcol_process_runtime_total_alloc_bytes', {
      description: 'Cumulative bytes allocated for heap objects (V8 heap in use plus bytes freed by collections)',
      unit: 'By',
    })
    .addCallback((r) => r.observe(allocations.read()));
  meter
    .createObservableGauge('otelcol_process_runtime_total_sys_memory_bytes', {
      description: 'Total bytes of memory obtained from the OS (V8 heap committed plus external memory)',
      unit: 'By',
    })
    .addCallback((r) => {
      const m = process.memoryUsage();
      r.observe(m.heapTotal + m.external);
    });
  return () => allocations.stop();
}
