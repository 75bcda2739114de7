/**
 * CPU time per thread of another process, from /proc/<pid>/task/<tid>/stat (Linux only), so a benchmark
 * can split a Node process's CPU between its main thread, its worker thread and the rest (V8's GC and
 * compiler helper threads, libuv's thread pool where zlib and fs work runs) without running code in it.
 * Node 20 has no `process.threadCpuUsage()` (added in Node 23.9), and it names all its threads `node`.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's utime and stime (USER_HZ; 100 on every Linux this runs on). */
const TICKS_PER_SECOND = 100;

export interface ThreadCpu {
  readonly tid: number;
  /** User plus system CPU time since the thread started, in µs (10 ms resolution). */
  readonly cpuUs: number;
  /** When the thread started, in clock ticks after boot: tells threads' creation order apart. */
  readonly startTicks: number;
}

/** Every live thread of `pid` with its CPU time so far; empty once the process has exited. */
export function readThreadCpu(pid: number): ThreadCpu[] {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const threads: ThreadCpu[] = [];
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended between the listing and the read
    }
    // Fields after the parenthesised command name, which may itself hold spaces (man 5 proc).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    threads.push({ tid: Number(tid), cpuUs: (ticks * 1e6) / TICKS_PER_SECOND, startTicks: Number(fields[19]) });
  }
  return threads;
}

/** CPU per thread between two readings, in µs; threads that started in between count from zero. */
export function threadCpuDelta(before: readonly ThreadCpu[], after: readonly ThreadCpu[]): Map<number, number> {
  const earlier = new Map(before.map((t) => [t.tid, t.cpuUs]));
  return new Map(after.map((t) => [t.tid, t.cpuUs - (earlier.get(t.tid) ?? 0)]));
}
