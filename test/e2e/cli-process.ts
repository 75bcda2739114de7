/**
 * Runs the real CLI (`bin/otelcol-azure-eventhub.js`) as a child process for end-to-end tests: collects
 * stdout and the JSON log lines on stderr, waits for a log line with a deadline, sends signals, and
 * always kills the child in `t.after` if the test left it running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { waitForValue } from '../helpers/wait-until.ts';

export const BIN = join(import.meta.dirname, '../../bin/otelcol-azure-eventhub.js');

export interface LogLine {
  readonly level?: string;
  readonly msg?: string;
  readonly [field: string]: unknown;
}

export interface CliProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Parsed JSON log lines so far (non-JSON stderr lines are skipped). */
  logs(): LogLine[];
  /** Resolves with the first log line (past or future) that matches; rejects after `timeoutMs`. */
  waitForLog(match: (line: LogLine) => boolean, timeoutMs: number, what?: string): Promise<LogLine>;
  /** Resolves with the exit code (128 + n for a signal death); rejects after `timeoutMs`. */
  exited(timeoutMs: number): Promise<number>;
}

/** Where and as whom the CLI runs; defaults: this checkout's bin, the test's user and directory. */
export interface CliSpawnOptions {
  readonly bin?: string;
  readonly cwd?: string;
  readonly uid?: number;
  readonly gid?: number;
}

export function startCli(
  t: TestContext,
  args: readonly string[],
  env: Record<string, string> = {},
  how: CliSpawnOptions = {},
): CliProcess {
  const child = spawn(process.execPath, [how.bin ?? BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: how.cwd,
    uid: how.uid,
    gid: how.gid,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'test', ...env },
  });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
    for (const w of waiters) w();
  });
  const exit = new Promise<number>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? (signal === 'SIGKILL' ? 137 : 128))),
  );
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const logs = (): LogLine[] =>
    err.split('\n').flatMap((l) => {
      if (!l.startsWith('{')) return [];
      try {
        return [JSON.parse(l) as LogLine];
      } catch {
        return [];
      }
    });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    logs,
    waitForLog(match, timeoutMs, what = 'log line') {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = logs().find(match);
          if (!hit) return;
          done();
          resolve(hit);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no ${what} within ${timeoutMs} ms; stderr:\n${err.slice(-4000)}`));
        }, timeoutMs);
        const onExit = () => {
          done();
          reject(new Error(`the CLI exited (code ${child.exitCode}) before ${what}; stderr:\n${err.slice(-4000)}`));
        };
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
          child.off('exit', onExit);
        };
        waiters.add(check);
        child.once('exit', onExit);
        check();
      });
    },
    exited(timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the CLI did not exit within ${timeoutMs} ms; stderr:\n${err.slice(-4000)}`)),
          timeoutMs,
        );
        void exit.then((code) => {
          clearTimeout(timer);
          resolve(code);
        });
      });
    },
  };
}

/** One OTLP/JSON log record as the `file` exporter writes it (only the fields the tests read). */
export interface FileLogRecord {
  readonly body?: { readonly stringValue?: string; readonly [kind: string]: unknown };
  readonly [field: string]: unknown;
}

/** Every log record in a `file` exporter's JSON lines, in file order; none when the file does not exist yet. */
export async function fileRecords(path: string): Promise<FileLogRecord[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const records: FileLogRecord[] = [];
  for (const line of text.split('\n').filter(Boolean)) {
    const req = JSON.parse(line) as { resourceLogs: { scopeLogs: { logRecords: FileLogRecord[] }[] }[] };
    for (const rl of req.resourceLogs) for (const sl of rl.scopeLogs) records.push(...sl.logRecords);
  }
  return records;
}

/** `host:port` from a "... listening" log line's `endpoint` field. */
export function endpointOf(line: LogLine): string {
  return String(line.endpoint);
}

/** GET with a deadline; returns status and body. */
export async function httpGet(url: string, timeoutMs = 5_000): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  return { status: res.status, body: await res.text() };
}

/** The e2e tests' name for the shared helper (test/helpers/wait-until.ts) that waits for a value. */
export const waitUntil = waitForValue;
