import { startInspectorProfile } from './inspector-profile.ts';

/** Mean bytes between two allocation samples: 32 KiB (V8's default; fine enough for a profile of seconds). */
export const ALLOCATION_SAMPLING_INTERVAL_BYTES = 32 * 1024;

/** A V8 sampling heap profile (the `.heapprofile` JSON the Chrome DevTools Memory tab opens). */
export type AllocationProfile = Record<string, unknown>;

/**
 * Starts sampling this process's allocations through `node:inspector` (an in-process session), counting
 * objects the garbage collector has already freed as well: what was allocated, and where, while it ran,
 * not only what is still alive (a heap snapshot shows that). `stop()` ends it and returns the profile.
 */
export function startAllocationProfile(
  intervalBytes = ALLOCATION_SAMPLING_INTERVAL_BYTES,
): Promise<{ stop(): Promise<AllocationProfile> }> {
  return startInspectorProfile(
    async (post) => {
      await post('HeapProfiler.enable');
      await post('HeapProfiler.startSampling', {
        samplingInterval: intervalBytes,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    },
    async (post) => (await post<{ profile: AllocationProfile }>('HeapProfiler.stopSampling')).profile,
  );
}
