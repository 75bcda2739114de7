import { startInspectorProfile } from './inspector-profile.ts';

/** Sampling interval of CPU profiles, in µs: 1000 µs (1 kHz, V8's own default; Go's pprof samples at 100 Hz). */
export const CPU_SAMPLING_INTERVAL_US = 1_000;

/** A V8 CPU profile (the `.cpuprofile` JSON Chrome DevTools and VS Code open). */
export type CpuProfile = Record<string, unknown>;

/**
 * Starts a V8 CPU profile of this process through `node:inspector` (an in-process session: nothing listens on
 * a port). `stop()` ends it and returns the profile. Each call has its own session, so profiles may overlap
 * (the pprof endpoint still serves one at a time, to bound the overhead).
 */
export function startCpuProfile(): Promise<{ stop(): Promise<CpuProfile> }> {
  return startInspectorProfile(
    async (post) => {
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: CPU_SAMPLING_INTERVAL_US });
      await post('Profiler.start');
    },
    async (post) => (await post<{ profile: CpuProfile }>('Profiler.stop')).profile,
  );
}
