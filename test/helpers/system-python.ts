/**
 * The system Python (Debian's /usr/bin/python3, where `apt-get install python3-azure` and friends land),
 * for interop tests that run clients nobody here wrote. A pyenv shim earlier on PATH would hide those
 * packages, so the system interpreter is named by path first.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CANDIDATES = ['/usr/bin/python3', 'python3'];

/** The Debian package that provides each Python module the interop tests import. */
const PACKAGE_OF_MODULE: Record<string, string> = {
  'azure.eventhub': 'python3-azure',
  'azure.eventhub.extensions.checkpointstoreblob': 'python3-azure',
  'azure.eventhub.extensions.checkpointstoreblobaio': 'python3-azure',
  // The asyncio client's WebSocket transport (a dependency of python3-azure).
  aiohttp: 'python3-aiohttp',
  'azure.storage.blob': 'python3-azure',
  // azure-eventhub 5.11 reaches a custom endpoint (any port but 5671) only over WebSockets.
  websocket: 'python3-websocket',
  proton: 'python3-qpid-proton',
  uamqp: 'python3-uamqp',
};

export type SystemPython = { ok: true; python: string } | { ok: false; skip: string };

/**
 * A Python interpreter that imports every module, or a skip message naming the Debian packages to install
 * (`.ci/run` installs them; a developer machine may not have them).
 */
export function systemPython(modules: string[]): SystemPython {
  const probe = modules.map((m) => `import ${m}`).join('; ') || 'pass';
  for (const python of CANDIDATES) {
    if (python.startsWith('/') && !existsSync(python)) continue;
    try {
      execFileSync(python, ['-c', probe], { stdio: 'ignore', timeout: 30_000 });
      return { ok: true, python };
    } catch {
      // try the next interpreter
    }
  }
  const packages = [...new Set(modules.map((m) => PACKAGE_OF_MODULE[m] ?? m))].join(' ');
  return {
    ok: false,
    skip: `needs the system Python with ${modules.join(', ')}: apt-get install ${packages} (as .ci/run does)`,
  };
}

export interface PythonRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a Python script with arguments and an environment; resolves with its exit code and output. */
export function runPython(
  python: string,
  script: string,
  args: string[] = [],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<PythonRun> {
  return new Promise((resolve) => {
    execFile(
      python,
      [script, ...args],
      { env: { ...process.env, ...options.env }, timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error
          ? typeof (error as { code?: unknown }).code === 'number'
            ? (error as { code: number }).code
            : null
          : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}
