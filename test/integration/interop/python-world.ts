/**
 * The Azure SDK for Python (Debian's azure-eventhub 5.11.0, unmodified) against the emulator and Azurite:
 * the emulator with a throw-away TLS certificate and a `wss` port, and the environment the scripts in
 * python/ read. How the Python SDK is pointed at the emulator (interop_common.py says it too):
 *
 * - its connection string's Endpoint is `sb://127.0.0.1` without a port, so its fully qualified namespace
 *   (and so its checkpoint store's blob names) is `127.0.0.1`, as ours and the JS SDK's;
 * - `custom_endpoint_address` names the port; in 5.11 that always means AMQP over WebSockets, so it is the
 *   emulator's `websocketPort`, with TLS (the SDK has no plain transport), and `connection_verify` names the
 *   certificate.
 *
 * Our side (JS SDK, receiver) uses the TLS AMQP port of the same emulator; the test process trusts any
 * certificate (loopback only), and receiver child processes inherit that.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { BlobServiceClient } from '@azure/storage-blob';
import { startAzurite, randomName } from '../../helpers/azurite.ts';
import { startTestEmulator, type TestEmulator, type TestEmulatorOptions } from '../../helpers/emulator.ts';
import { runPython, systemPython } from '../../helpers/system-python.ts';
import { createSelfSignedCert, trustAnyCertificate } from '../backends/self-signed-cert.ts';
import { LineChild } from '../../helpers/line-child.ts';

const SCRIPTS = join(dirname(fileURLToPath(import.meta.url)), 'python');

/**
 * What the scripts import: the SDK, its asyncio blob checkpoint store, and aiohttp (its asyncio WebSocket transport).
 */
const MODULES = ['azure.eventhub', 'azure.eventhub.extensions.checkpointstoreblobaio', 'aiohttp'];
const found = systemPython(MODULES);
/** The system Python that imports the SDK. */
export const PYTHON = found.ok ? found.python : '';
/** `false`, or why the interop tests skip (the Debian packages to install). */
export const SKIP: string | false = found.ok ? false : found.skip;

export interface PythonWorld extends TestEmulator {
  /** Our connection string (AMQPS port of the emulator, EntityPath set). */
  readonly connectionString: string;
  /** The environment the Python scripts read (EH_CONNECTION, EH_CUSTOM_ENDPOINT, EH_CA_CERT, storage). */
  readonly pythonEnv: Record<string, string>;
  /** Azurite's connection string and a fresh container, when started with `storage: true`. */
  readonly storage?: { readonly connectionString: string; readonly container: string };
}

/** Where cleanups go: a test context, or a collector run by a suite's `after` (see `cleanupsOf`). */
export interface Cleanup {
  after(fn: () => unknown): void;
}

/**
 * A collector for a world shared by a suite, started in its `before`: node:test's `after` called from inside
 * a `before` hook does not wait for the suite's tests, so register `run` with the suite's `after` instead.
 * Cleanups run in registration order, as node:test runs `t.after` hooks.
 */
export function cleanupsOf(): Cleanup & { run(): Promise<void> } {
  const fns: (() => unknown)[] = [];
  return {
    after: (fn) => void fns.push(fn),
    async run() {
      for (const fn of fns.splice(0)) await fn();
    },
  };
}

export interface PythonWorldOptions extends Omit<TestEmulatorOptions, 'tls' | 'websocketPort'> {
  /** Start Azurite and create a container. Default false. */
  readonly storage?: boolean;
}

/**
 * Starts the emulator (TLS + wss) and, with `storage`, Azurite; everything is stopped in `t.after` (a test
 * context, or a `cleanupsOf` collector for a suite's shared world).
 */
export async function startPythonWorld(t: Cleanup, options: PythonWorldOptions = {}): Promise<PythonWorld> {
  const { storage: withStorage = false, ...emulatorOptions } = options;
  trustAnyCertificate();
  const dir = mkdtempSync(join(tmpdir(), 'python-interop-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const tls = createSelfSignedCert();
  const certPath = join(dir, 'cert.pem');
  writeFileSync(certPath, tls.cert);
  let storage: PythonWorld['storage'];
  if (withStorage) {
    // Registered before the emulator's cleanup: hooks run in registration order, and processors release
    // their claims while they stop, so storage must outlive them.
    const azurite = await startAzurite();
    t.after(() => azurite.stop());
    const container = randomName('py');
    await BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(container).create();
    storage = { connectionString: azurite.connectionString, container };
  }
  const world = await startTestEmulator(t as TestContext, { ...emulatorOptions, tls, websocketPort: 0 });
  const ours = world.emulator.connectionString(world.hubName);
  const pythonEnv: Record<string, string> = {
    // The same key, without the port: see the file comment.
    EH_CONNECTION: ours.replace(/^Endpoint=sb:\/\/127\.0\.0\.1:\d+/, 'Endpoint=sb://127.0.0.1'),
    EH_CUSTOM_ENDPOINT: `sb://127.0.0.1:${world.emulator.websocketPort}`,
    EH_CA_CERT: certPath,
    ...(storage ? { STORAGE_CONNECTION: storage.connectionString, STORAGE_CONTAINER: storage.container } : {}),
  };
  return { ...world, connectionString: ours, pythonEnv, storage };
}

/** The scripts' environment; no bytecode files written next to them. */
function pythonEnvOf(world: PythonWorld): Record<string, string> {
  return { ...world.pythonEnv, PYTHONDONTWRITEBYTECODE: '1' };
}

/** Runs python/<script> with the world's environment; resolves with the JSON it printed last. */
export async function runScript<T = any>(
  world: PythonWorld,
  script: string,
  args: string[] = [],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<T> {
  const run = await runPython(PYTHON, join(SCRIPTS, script), args, {
    env: { ...pythonEnvOf(world), ...options.env },
    timeoutMs: options.timeoutMs ?? 60_000,
  });
  const last = run.stdout.trim().split('\n').pop() ?? '';
  if (run.code !== 0 || !last.startsWith('{')) {
    throw new Error(
      `${script} ${args.join(' ')} exited with ${run.code}\nstdout: ${run.stdout.slice(-2000)}\nstderr: ` +
        `${run.stderr.slice(-4000)}`,
    );
  }
  return JSON.parse(last) as T;
}

/** One line of processor.py. */
export interface ProcessorLine {
  readonly t: 'open' | 'close' | 'ev' | 'cp' | 'err' | 'stopped';
  readonly p?: string | null;
  readonly s?: number;
  readonly b?: string;
  readonly reason?: string;
  readonly type?: string;
  readonly message?: string;
  readonly at: number;
}

/**
 * The Python SDK's event processor (python/processor.py) in a child process: EventHubConsumerClient with
 * the asyncio BlobCheckpointStore against the world's Azurite container, a checkpoint after every batch.
 * `owned`: partitions whose reader is open (on_partition_initialize without on_partition_close since).
 */
export class PythonProcessor extends LineChild {
  readonly lines: ProcessorLine[] = [];
  /** Every event handed to the processor's handler: [partition, sequence number]. */
  readonly records: [string, number][] = [];

  constructor(name: string, world: PythonWorld, env: Record<string, string> = {}) {
    super(name, PYTHON, [join(SCRIPTS, 'processor.py')], { ...process.env, ...pythonEnvOf(world), ...env });
  }

  protected onLine(text: string): void {
    if (!text.startsWith('{')) return;
    const line = { ...(JSON.parse(text) as Omit<ProcessorLine, 'at'>), at: Date.now() } as ProcessorLine;
    this.lines.push(line);
    if (line.t === 'open') this.owned.add(line.p!);
    else if (line.t === 'close') this.owned.delete(line.p!);
    else if (line.t === 'ev') this.records.push([line.p!, line.s!]);
  }
}
