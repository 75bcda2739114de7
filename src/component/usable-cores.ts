import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** Where Linux exposes a cgroup's CPU quota: v2 (`<quota> <period>` or `max <period>`), then v1. */
const CGROUP_V2_CPU_MAX = '/sys/fs/cgroup/cpu.max';
const CGROUP_V1_QUOTA = '/sys/fs/cgroup/cpu/cpu.cfs_quota_us';
const CGROUP_V1_PERIOD = '/sys/fs/cgroup/cpu/cpu.cfs_period_us';

/**
 * The cores this process may keep busy: `os.availableParallelism()` (CPU affinity), lowered to a container's
 * CPU quota rounded up (a Kubernetes CPU limit of 1.5 is 2). Node 20's libuv (1.46) does not read the
 * quota itself, so a pod limited to 1 CPU on a 16-core node would otherwise count 16.
 */
export function usableCores(read: (path: string) => string | undefined = readText): number {
  const cores = availableParallelism();
  const quota = cgroupQuota(read);
  return quota === undefined ? cores : Math.max(1, Math.min(cores, Math.ceil(quota)));
}

/** The cgroup's CPU quota in cores, when it sets one. */
export function cgroupQuota(read: (path: string) => string | undefined = readText): number | undefined {
  const v2 = read(CGROUP_V2_CPU_MAX)?.trim().split(/\s+/);
  if (v2 && v2.length === 2) return v2[0] === 'max' ? undefined : ratio(v2[0]!, v2[1]!);
  const quota = read(CGROUP_V1_QUOTA)?.trim();
  const period = read(CGROUP_V1_PERIOD)?.trim();
  if (quota === undefined || period === undefined || quota === '-1') return undefined;
  return ratio(quota, period);
}

function ratio(quota: string, period: string): number | undefined {
  const q = Number(quota);
  const p = Number(period);
  return Number.isFinite(q) && Number.isFinite(p) && q > 0 && p > 0 ? q / p : undefined;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
