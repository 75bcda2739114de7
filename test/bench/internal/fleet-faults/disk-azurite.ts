/**
 * Azurite's blob service persisted on disk (`--location`), so a storage outage can be played as a user
 * meets it: the process stopped, then started again with its data, on the same port. (The tests'
 * launcher, scripts/local/azurite.ts, keeps everything in memory.) Flags otherwise as that launcher.
 * Clients reach it through a gate (storage-gate.ts) that drops their connections the moment the outage
 * starts, so Azurite's graceful stop (which saves its data) has no open connection left to serve.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AZURITE_ACCOUNT, AZURITE_KEY } from '../../../helpers/azurite.ts';
import { startStorageGate } from './storage-gate.ts';

const require = createRequire(import.meta.url);
const MAIN = join(dirname(require.resolve('azurite/package.json')), 'dist', 'src', 'blob', 'main.js');
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

export interface DiskAzurite {
  /** The port clients use (the gate's). */
  readonly port: number;
  readonly connectionString: string;
  /** Cuts every client connection, refuses new ones, and stops the process gracefully (its data is saved to disk). */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same data. */
  restart(): Promise<void>;
  /** Stops it and deletes its data. */
  dispose(): Promise<void>;
}

async function launch(location: string, port: number): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    [MAIN, '--location', location, '--disableTelemetry', '--skipApiVersionCheck', '--loose', '--silent', '--blobHost', '127.0.0.1', '--blobPort', String(port)],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, AZURITE_ACCOUNTS: '' }, detached: true },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const bound = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Azurite did not start within ${START_TIMEOUT_MS} ms: ${out}`));
    }, START_TIMEOUT_MS);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listens on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Azurite exited with code ${code}: ${out}`));
    });
  });
  return { child, port: bound };
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export async function startDiskAzurite(): Promise<DiskAzurite> {
  const location = mkdtempSync(join(tmpdir(), 'fleet-faults-azurite-'));
  const first = await launch(location, 0);
  let child = first.child;
  const gate = await startStorageGate(first.port);
  const blobEndpoint = `http://127.0.0.1:${gate.port}/${AZURITE_ACCOUNT}`;
  return {
    port: gate.port,
    connectionString: `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};BlobEndpoint=${blobEndpoint};`,
    async stop() {
      await gate.close();
      await stopChild(child);
    },
    async restart() {
      await gate.close();
      await stopChild(child);
      ({ child } = await launch(location, first.port));
      await gate.open();
    },
    async dispose() {
      await gate.stop();
      await stopChild(child);
      rmSync(location, { recursive: true, force: true });
    },
  };
}
