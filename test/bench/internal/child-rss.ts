/** Reads a process's resident set size from /proc (Linux only), for benchmarks that measure a child alone. */
import { readFileSync } from 'node:fs';

export interface RssSample {
  /** Current resident set size, in bytes. */
  readonly rssBytes: number;
  /** Peak resident set size since the process started (VmHWM), in bytes. */
  readonly hwmBytes: number;
}

/** The process's VmRSS and VmHWM, or undefined once it has exited. */
export function readRss(pid: number): RssSample | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rssBytes: kib('VmRSS'), hwmBytes: kib('VmHWM') };
}

export const MIB = 1024 * 1024;

/** Bytes as MiB with one decimal. */
export function mib(bytes: number): number {
  return Math.round((bytes / MIB) * 10) / 10;
}
