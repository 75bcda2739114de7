/**
 * Storage requests per minute of a balanced fleet in steady state, counted at a proxy in front of Azurite:
 * 3 ownership coordinators (no receivers, so no checkpoints) share 12 partitions at the default timings
 * (lease 15 s, renew 5 s, update 5 s). Counted by kind: listings, lease renewals, metadata writes, and
 * everything else. Guards the hand-off work: a faster hand-off must not cost more requests while nobody
 * joins or leaves. BENCH_TRAFFIC_SECONDS sets the counting window (default 60 s).
 */
import { BlobServiceClient } from '@azure/storage-blob';
import { LeaseOwnershipCoordinator } from '../../src/ownership/lease-ownership-coordinator.ts';
import { startAzurite, randomName, AZURITE_ACCOUNT, AZURITE_KEY } from '../helpers/azurite.ts';
import { Timeline, waitFor } from '../integration/ownership/helpers/fake-lifecycle.ts';
import { startCountingProxy } from './internal/counting-proxy.ts';

const PARTITIONS = 12;
const INSTANCES = 3;
const WINDOW_SECONDS = Number(process.env.BENCH_TRAFFIC_SECONDS ?? 60);
const BALANCE_TIMEOUT_MS = 120_000;

const azurite = await startAzurite();
const proxy = await startCountingProxy(azurite.port);
const names = Array.from({ length: INSTANCES }, (_, i) => `member-${i}`);
const coordinators: LeaseOwnershipCoordinator[] = [];
try {
  const storage =
    `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};` +
    `BlobEndpoint=http://127.0.0.1:${proxy.port}/${AZURITE_ACCOUNT};`;
  const container = BlobServiceClient.fromConnectionString(storage).getContainerClient(randomName('traffic'));
  await container.create();
  const scope = {
    fullyQualifiedNamespace: 'ns.servicebus.windows.net',
    eventHubName: randomName('hub'),
    consumerGroup: '$default',
  };
  const timeline = new Timeline();
  for (const name of names) {
    coordinators.push(
      new LeaseOwnershipCoordinator({
        containerClient: container,
        scope,
        ownerId: name,
        startDelayMs: 0,
        getPartitionIds: async () => Array.from({ length: PARTITIONS }, (_, i) => String(i)),
      }),
    );
  }
  await Promise.all(coordinators.map((c, i) => c.start(timeline.lifecycle(names[i]!))));
  await waitFor(
    'a balanced fleet',
    () => names.every((n) => timeline.count(n) === PARTITIONS / INSTANCES),
    BALANCE_TIMEOUT_MS,
  );
  // Let any catch-up round settle before counting.
  await new Promise((r) => setTimeout(r, 6_000));
  type Kind = 'list' | 'renew' | 'metadata' | 'other';
  const kindOf = (r: { method: string; query: string }): Kind => {
    if (r.method === 'GET' && r.query.includes('comp=list')) return 'list';
    if (r.method === 'PUT' && r.query.includes('comp=lease')) return 'renew';
    if (r.method === 'PUT' && r.query.includes('comp=metadata')) return 'metadata';
    return 'other';
  };
  const kinds: Kind[] = ['list', 'renew', 'metadata', 'other'];
  const before = Object.fromEntries(kinds.map((k) => [k, proxy.countWhere((r) => kindOf(r) === k)]));
  const startedAt = performance.now();
  await new Promise((r) => setTimeout(r, WINDOW_SECONDS * 1000));
  const minutes = (performance.now() - startedAt) / 60_000;
  const perMinute = Object.fromEntries(
    kinds.map((k) => [k, Math.round(((proxy.countWhere((r) => kindOf(r) === k) - before[k]!) / minutes) * 10) / 10]),
  );
  const total = Math.round(kinds.reduce((sum, k) => sum + perMinute[k]!, 0) * 10) / 10;
  const stable = names.every((n) => timeline.count(n) === PARTITIONS / INSTANCES);
  console.log(
    `${INSTANCES} coordinators, ${PARTITIONS} partitions, ${Math.round(minutes * 600) / 10} s window, fleet stayed ` +
      `balanced: ${stable}`,
  );
  console.log(
    `requests per minute: total ${total} (${JSON.stringify(perMinute)}); per partition ` +
      `${Math.round((total / PARTITIONS) * 10) / 10}`,
  );
  if (timeline.violations.length > 0) console.log(`VIOLATIONS: ${timeline.violations.join('; ')}`);
  const benchResult = {
    instances: INSTANCES,
    partitions: PARTITIONS,
    windowSeconds: Math.round(minutes * 60),
    stable,
    requestsPerMinute: total,
    perMinute,
  };
  console.log(`BENCH_RESULT ${JSON.stringify(benchResult)}`);
} finally {
  await Promise.all(coordinators.map((c) => c.shutdown()));
  await proxy.stop();
  await azurite.stop();
}
