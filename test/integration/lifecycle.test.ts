/**
 * The lifecycle battery (as the collector's generated component tests): every receiver, processor, exporter
 * and extension factory the distribution registers is created from its default config (plus the few
 * settings it cannot run without), then
 *   - created, started, shut down, shut down again;
 *   - created and shut down without a start;
 * and each shutdown must resolve and leave no timer, socket or server of the component behind.
 * Processors and exporters have no start (a consumer is live once created); for them the first case is
 * create, forceFlush, shutdown, shutdown. A factory added to the registry is covered without editing this
 * file; only a required setting needs a line in REQUIRED.
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinComponents } from '../../src/distribution/builtin-components.ts';
import type { Components, NamedFactory } from '../../src/distribution/components.ts';
import { mergeConfig } from '../../src/config/merge-config.ts';
import { weakParse } from '../../src/config/weak-parse.ts';
import { noopLogger } from '../../src/component/logger.ts';
import { InMemorySignalConsumer } from '../../src/pipeline/in-memory-consumer.ts';
import { startTestEmulator } from '../helpers/emulator.ts';
import { waitUntil } from '../helpers/wait-until.ts';

const dir = mkdtempSync(join(tmpdir(), 'lifecycle-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

let connectionString = '';
let fileCount = 0;

/** Settings without which a component cannot be created; random loopback ports, never fixed ones. */
const REQUIRED: Record<string, () => unknown> = {
  'receivers/azure_event_hub': () => ({ connection: connectionString }),
  'exporters/file': () => ({ path: join(dir, `out-${fileCount++}.json`) }),
  // Nothing listens there: an exporter must not connect before it has something to send.
  'exporters/otlphttp': () => ({ endpoint: 'http://127.0.0.1:9' }),
  'exporters/otlp': () => ({ endpoint: '127.0.0.1:9', tls: { insecure: true } }),
  'processors/memory_limiter': () => ({ check_interval: '1s', limit_mib: 4_000, spike_limit_mib: 800 }),
  'extensions/azure_auth': () => ({ use_default: true }),
  'extensions/health_check': () => ({ endpoint: '127.0.0.1:0' }),
  'extensions/zpages': () => ({ endpoint: '127.0.0.1:0' }),
  'extensions/pprof': () => ({ endpoint: '127.0.0.1:0' }),
};

type Factory = NamedFactory & { configSchema: Parameters<typeof weakParse>[0]; createDefaultConfig(): unknown };

/** The config the service would build from a section holding only the required settings. */
function configFor(kind: keyof Components, factory: Factory): unknown {
  const section = REQUIRED[`${kind}/${factory.type}`]?.() ?? {};
  const parsed = weakParse(factory.configSchema, section);
  assert.ok(parsed.success, `${kind}.${factory.type}: ${parsed.error?.message}`);
  return mergeConfig(factory.createDefaultConfig(), parsed.data);
}

/** Timers, sockets and servers alive now, by kind (what a component must not leave behind). */
function handles(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) {
    if (kind === 'Timeout' || kind.startsWith('TCP') || kind === 'Immediate')
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return counts;
}

function leftOver(baseline: Map<string, number>): string[] {
  return [...handles()]
    .filter(([kind, n]) => n > (baseline.get(kind) ?? 0))
    .map(([kind, n]) => `${kind} ×${n - (baseline.get(kind) ?? 0)}`);
}

/** Runs `body`, then waits until every handle it opened is closed again. */
async function leavesNothingBehind(what: string, body: () => Promise<void>): Promise<void> {
  const baseline = handles();
  await body();
  await waitUntil(
    () => leftOver(baseline).length === 0,
    5_000,
    () => `${what} to release ${leftOver(baseline).join(', ')}`,
  );
}

interface Lifecycle {
  start(): Promise<void>;
  shutdown(): Promise<void>;
}

const components = await builtinComponents();
const settings = (kind: string, type: string) => ({ id: `${type}/lifecycle`, logger: noopLogger, kind });

/** Each factory as something with start and shutdown, created the way the service creates it. */
const kinds: { kind: keyof Components; create(factory: any, config: unknown, id: string): Promise<Lifecycle> }[] = [
  {
    kind: 'receivers',
    create: async (f, config, id) => f.create(settings('receivers', id), config, new InMemorySignalConsumer()),
  },
  {
    kind: 'processors',
    create: async (f, config, id) =>
      asLifecycle(await f.create(settings('processors', id), config, new InMemorySignalConsumer())),
  },
  {
    kind: 'exporters',
    create: async (f, config, id) => asLifecycle(await f.create(settings('exporters', id), config)),
  },
  {
    kind: 'extensions',
    create: async (f, config, id) => f.create(settings('extensions', id), config),
  },
];

/** A consumer has no start: "start" is a forceFlush, which must work on a fresh consumer. */
function asLifecycle(consumer: { forceFlush?(): Promise<void>; shutdown?(): Promise<void> }): Lifecycle {
  return {
    start: async () => consumer.forceFlush?.(),
    shutdown: async () => consumer.shutdown?.(),
  };
}

before(async () => {
  const { connectionString: cs } = await startTestEmulator({ partitions: 2 });
  connectionString = cs;
});

test('the registry lists every kind of component', () => {
  for (const { kind } of kinds) assert.ok(components[kind].length > 0, `no ${kind}`);
});

for (const { kind, create } of kinds) {
  describe(kind, () => {
    for (const factory of components[kind] as readonly Factory[]) {
      test(`${factory.type}: create, start, shutdown, shutdown again`, { timeout: 60_000 }, async () => {
        await leavesNothingBehind(factory.type, async () => {
          const component = await create(factory, configFor(kind, factory), factory.type);
          await component.start();
          await component.shutdown();
          await component.shutdown();
        });
      });

      test(`${factory.type}: create, shutdown without start`, { timeout: 60_000 }, async () => {
        await leavesNothingBehind(factory.type, async () => {
          const component = await create(factory, configFor(kind, factory), factory.type);
          await component.shutdown();
        });
      });
    }
  });
}
