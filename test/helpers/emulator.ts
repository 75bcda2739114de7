/**
 * Starts an emulator for one test on a free loopback port, with a random hub (and a random extra
 * consumer group), and stops it in the test's `after` hook.
 *
 * Order matters: an SDK client closed after the emulator stopped leaves timers behind (a 60 s session
 * close wait, its 45 min token renewal loop) that keep the test process alive. node:test runs `after`
 * hooks in registration order, so a client's own `t.after(() => client.close())`, registered after this
 * helper, would run too late. Pass clients to `track()` instead: they are closed (newest first) before
 * the emulator stops.
 */
import { after, type TestContext } from 'node:test';
import {
  startEmulator,
  type Emulator,
  type EmulatorCaptureConfig,
  type EmulatorOptions,
} from '../../src/emulator/index.ts';
import { randomName } from './azurite.ts';
import { unrefSdkTokenRenewalTimers } from './sdk-token-renewal-timers.ts';

export interface Closeable {
  close(): Promise<unknown>;
}

export interface TestEmulator {
  emulator: Emulator;
  hubName: string;
  consumerGroup: string;
  /** Connection string with EntityPath set to `hubName`. */
  connectionString: string;
  /** Registers a client (or subscription) to close before the emulator stops; returns it. */
  track<T extends Closeable>(client: T): T;
}

export interface TestEmulatorOptions extends Omit<EmulatorOptions, 'port' | 'hubs'> {
  /** Partitions of the random hub. Default 2. */
  partitions?: number;
  /** Capture settings of the random hub. Default off. */
  capture?: EmulatorCaptureConfig;
}

/** Bound on each client close during cleanup, so a stuck close cannot hang the test run. */
const CLIENT_CLOSE_TIMEOUT_MS = 10_000;

/**
 * Starts a test emulator. Pass the test context to clean up in that test's `after`; without it (only
 * options), cleanup is registered with node:test's `after` of the enclosing suite or file.
 */
export async function startTestEmulator(
  t?: TestContext | TestEmulatorOptions,
  opts: TestEmulatorOptions = {},
): Promise<TestEmulator> {
  const context = t !== undefined && typeof (t as TestContext).after === 'function' ? (t as TestContext) : undefined;
  if (!context && t !== undefined) opts = t as TestEmulatorOptions;
  // The SDK's known token-renewal timer leak (see the helper) must not keep test processes alive.
  unrefSdkTokenRenewalTimers();
  const hubName = randomName('hub');
  const consumerGroup = randomName('cg');
  const { partitions = 2, capture, ...rest } = opts;
  const hub = { name: hubName, partitions, consumerGroups: [consumerGroup], ...(capture ? { capture } : {}) };
  const emulator = await startEmulator({ ...rest, port: 0, hubs: [hub] });
  const tracked: Closeable[] = [];
  const cleanup = async (): Promise<void> => {
    for (const client of tracked.splice(0).reverse()) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        client.close().catch(() => undefined),
        new Promise((resolve) => (timer = setTimeout(resolve, CLIENT_CLOSE_TIMEOUT_MS))),
      ]);
      clearTimeout(timer);
    }
    await emulator.stop();
  };
  if (context) context.after(cleanup);
  else after(cleanup);
  return {
    emulator,
    hubName,
    consumerGroup,
    connectionString: emulator.connectionString(hubName),
    track(client) {
      tracked.push(client);
      return client;
    },
  };
}
