/**
 * Measures failover on Azurite: the time from a crash (timers stopped, nothing released) or a graceful
 * shutdown() of one of 3 coordinators sharing 12 partitions until the survivors read all of its partitions.
 * Not a test (no assertions): run `npx tsx test/integration/ownership/measure-failover.ts [runs] [updateMs]`.
 * Each crash happens at a random moment of the renew cycle, as real crashes do.
 */
import { BlobServiceClient } from '@azure/storage-blob';
import { startAzurite, randomName } from '../../helpers/azurite.ts';
import { LeaseOwnershipCoordinator } from '../../../src/ownership/lease-ownership-coordinator.ts';
import { Timeline, waitFor } from './helpers/fake-lifecycle.ts';

const runs = Number(process.argv[2] ?? 5);
const updateIntervalMs = Number(process.argv[3] ?? 300);
const leaseDurationMs = 15_000;
const azurite = await startAzurite();

async function once(kind: 'crash' | 'graceful'): Promise<number> {
  const container = BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(
    randomName('c'),
  );
  await container.create();
  const scope = {
    fullyQualifiedNamespace: 'ns.servicebus.windows.net',
    eventHubName: randomName('h'),
    consumerGroup: '$default',
  };
  const timeline = new Timeline();
  const names = ['a', 'b', 'c'];
  const coordinators = names.map(
    (n) =>
      new LeaseOwnershipCoordinator({
        containerClient: container,
        scope,
        ownerId: n,
        leaseDurationMs,
        updateIntervalMs,
        strategy: 'balanced',
        getPartitionIds: async () => Array.from({ length: 12 }, (_, i) => String(i)),
      }),
  );
  await Promise.all(coordinators.map((c, i) => c.start(timeline.lifecycle(names[i]!))));
  try {
    await waitFor('4/4/4', () => names.every((n) => timeline.count(n) === 4), 60_000);
    await new Promise((r) => setTimeout(r, Math.random() * 5_000)); // a random point of the renew cycle
    const victim = coordinators[2]!;
    const began = Date.now();
    if (kind === 'crash') {
      victim.abandon();
      timeline.crash('c');
    } else {
      await victim.shutdown();
    }
    await waitFor(
      'survivors own 6/6',
      () => timeline.count('a') === 6 && timeline.count('b') === 6,
      leaseDurationMs * 3,
    );
    if (timeline.violations.length) throw new Error(timeline.violations.join('; '));
    return Date.now() - began;
  } finally {
    await Promise.all(coordinators.slice(0, 2).map((c) => c.shutdown()));
  }
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length / 2;
  const median = s.length % 2 ? s[Math.floor(mid)]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, max: s[s.length - 1]!, min: s[0]!, all: xs };
};
try {
  const results: Record<string, ReturnType<typeof stats>> = {};
  for (const kind of ['graceful', 'crash'] as const) {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      times.push(await once(kind));
      console.log(`${kind} run ${i + 1}: ${times[times.length - 1]} ms`);
    }
    results[kind] = stats(times);
    console.log(
      `${kind}: median ${results[kind].median} ms, max ${results[kind].max} ms over ${runs} runs (update interval ` +
        `${updateIntervalMs} ms, lease ${leaseDurationMs} ms)`,
    );
  }
  console.log(
    `BENCH_RESULT ${JSON.stringify({ name: 'ownership-failover', updateIntervalMs, leaseDurationMs, ...results })}`,
  );
} finally {
  await azurite.stop();
}
