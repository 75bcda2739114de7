/**
 * Starts Azurite's blob service from node_modules as a child process on loopback, on a free port,
 * in memory, with telemetry off, and stops it afterwards. Flags per ../shared/design/EVENT-HUBS-PROTOCOL.md,
 * plus `--loose`: in strict mode Azurite refuses requests carrying headers it does not implement, and the
 * Azure SDK for Python's blob client (azure-storage-blob 12.15, under azure-eventhub's BlobCheckpointStore)
 * sends `x-ms-encryption-algorithm` on every metadata write, which strict Azurite answers with
 * `500 FeatureNotSupported`. Loose mode ignores such headers, so the SDK checkpoint stores of other
 * languages work against it too (test/integration/interop/python-checkpoints.test.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

const require = createRequire(import.meta.url);

/** Azurite's well-known development account (public, documented by Microsoft). */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export interface Azurite {
  readonly port: number;
  readonly blobEndpoint: string;
  readonly connectionString: string;
  stop(): Promise<void>;
}

function azuriteBlobMain(): string {
  const pkg = require.resolve('azurite/package.json');
  return join(dirname(pkg), 'dist', 'src', 'blob', 'main.js');
}

export interface AzuriteOptions {
  readonly startTimeoutMs?: number;
  /** Keep the data in this folder instead of in memory (it survives a stop and a start on the same folder). */
  readonly location?: string;
  /** Listen on this port. Default 0: a free port. */
  readonly port?: number;
}

/** The endpoint and connection string of an Azurite blob service listening on loopback `port`. */
export function azuriteAt(port: number): Omit<Azurite, 'stop'> {
  const blobEndpoint = `http://127.0.0.1:${port}/${AZURITE_ACCOUNT}`;
  return {
    port,
    blobEndpoint,
    connectionString:
      `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};` +
      `BlobEndpoint=${blobEndpoint};`,
  };
}

export async function startAzurite(options: AzuriteOptions = {}): Promise<Azurite> {
  const persistence = options.location ? ['--location', options.location] : ['--inMemoryPersistence'];
  const child: ChildProcess = spawn(
    process.execPath,
    [
      azuriteBlobMain(),
      ...persistence,
      '--disableTelemetry',
      '--skipApiVersionCheck',
      '--loose',
      '--silent',
      '--blobHost',
      '127.0.0.1',
      '--blobPort',
      String(options.port ?? 0),
    ],
    // Its own process group: a terminal's Ctrl-C reaches the whole foreground group, and storage must
    // outlive our graceful shutdown (final checkpoints, lease releases). We stop it ourselves, last.
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, AZURITE_ACCOUNTS: '' }, detached: true },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Azurite did not start within ${options.startTimeoutMs ?? 20_000} ms; output: ${out}`));
    }, options.startTimeoutMs ?? 20_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listens on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(Number(m[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Azurite exited with code ${code}: ${out}`));
    });
  });
  // Keep draining output so a full pipe never blocks Azurite.
  child.stdout?.resume();
  child.stderr?.resume();
  let stopped: Promise<void> | undefined;
  return {
    ...azuriteAt(port),
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        timer.unref();
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      });
      return stopped;
    },
  };
}

/** A random lower-case name valid as a container, hub or consumer group name. */
export function randomName(prefix = 't'): string {
  return `${prefix}${randomBytes(6).toString('hex')}`;
}
