// run-tests: own process (the pprof test takes a heap snapshot, whose size and time grow with everything else
// loaded into the process).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Logger } from '../../../src/component/logger.ts';
import { ConfigError } from '../../../src/component/errors.ts';
import { loadConfig } from '../../../src/config/load-config.ts';
import type { PprofExtension } from '../../../src/extensions/pprof/pprof-extension.ts';
import type { ZPagesExtension } from '../../../src/extensions/zpages/zpages-extension.ts';
import { resolveConfig } from '../../../src/distribution/resolve-config.ts';
import { Service } from '../../../src/distribution/service.ts';
import type { PartitionOwnershipInfo } from '../../../src/ownership/admin.ts';
import { STREAMING_GATE_ID } from '../../../src/component/feature-gates.ts';
import { testComponents, type FakeReceiver } from '../distribution/fake-components.ts';

const CONN =
  'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=c2VydmljZS10ZXN0;EntityPath=audit';
const CONFIG = `
receivers:
  azure_event_hub/audit: { connection: "${CONN}", retention: 1h }
exporters:
  debug:
processors:
  batch: { timeout: 0 }
extensions:
  zpages: { endpoint: "127.0.0.1:0" }
  pprof: { endpoint: "127.0.0.1:0" }
service:
  extensions: [zpages, pprof]
  pipelines:
    logs/audit: { receivers: [azure_event_hub/audit], processors: [batch], exporters: [debug] }
  telemetry: { metrics: { level: none } }
`;

function recordingLogger(lines: string[]): Logger {
  const log = (message: string, fields: Record<string, unknown> = {}) =>
    lines.push(`${message} ${JSON.stringify(fields)}`);
  return { debug: log, info: log, warn: log, error: log, child: () => recordingLogger(lines) };
}

async function startService(t: TestContext) {
  const tc = testComponents();
  const lines: string[] = [];
  const loaded = await loadConfig({ configs: [`yaml:${CONFIG}`], env: {} });
  const service = await Service.start(resolveConfig(loaded.raw, tc.components), { logger: recordingLogger(lines) });
  t.after(() => service.shutdown());
  const zpages = (service.extension('zpages') as ZPagesExtension).address()!;
  const pprof = (service.extension('pprof') as PprofExtension).address()!;
  const receiver = tc.receivers.get('azure_event_hub/audit')! as FakeReceiver & {
    ownerId?: () => string;
    fleetOwnership?: () => Promise<readonly PartitionOwnershipInfo[]>;
  };
  return {
    service,
    lines,
    zpages: `http://127.0.0.1:${zpages.port}`,
    pprof: `http://127.0.0.1:${pprof.port}`,
    receiver,
  };
}

const get = (url: string) => fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(30_000) });

test('zpages serve the service, pipeline, extension and feature pages as self-contained HTML', async (t) => {
  const { zpages, lines } = await startService(t);
  assert.ok(lines.some((l) => l.startsWith('zpages endpoint listening') && l.includes(zpages.slice('http://'.length))));
  assert.ok(lines.some((l) => l.startsWith('pprof endpoint listening')));

  const root = await get(`${zpages}/`);
  assert.equal(root.status, 302);
  assert.equal(root.headers.get('location'), '/debug/servicez');

  const pages: Record<string, RegExp[]> = {
    '/debug/servicez': [
      /otelcol-azure-eventhub \d+\.\d+\.\d+/,
      new RegExp(`Process id</dt><dd>${process.pid}<`),
      /Resident memory/,
    ],
    '/debug/pipelinez': [
      /logs\/audit/,
      /<code>azure_event_hub\/audit<\/code>/,
      /<code>batch<\/code>/,
      /<code>debug<\/code>/,
    ],
    '/debug/extensionz': [/<span>zpages<\/span>/, /<span>pprof<\/span>/],
    '/debug/featurez': [new RegExp(STREAMING_GATE_ID.replaceAll('.', '\\.')), /<span>no<\/span>/],
  };
  for (const [path, patterns] of Object.entries(pages)) {
    const res = await get(`${zpages}${path}`);
    assert.equal(res.status, 200, path);
    assert.match(res.headers.get('content-type')!, /^text\/html/);
    assert.match(res.headers.get('content-security-policy')!, /default-src 'none'/, 'nothing may load from elsewhere');
    const html = await res.text();
    for (const p of patterns) assert.match(html, p, `${path} shows ${p}`);
    assert.doesNotMatch(html, /<script|<link|src="http/, `${path} is self-contained`);
    assert.match(html, /name="viewport"/, `${path} is laid out for phones`);
  }
  assert.equal((await get(`${zpages}/debug/nope`)).status, 404);
  assert.equal((await fetch(`${zpages}/debug/servicez`, { method: 'POST' })).status, 405);
});

test(
  'eventhubz shows the ownership blobs, hub lag with a chart sample, retention headroom and redacted ' + 'errors',
  async (t) => {
    const { zpages, receiver } = await startService(t);
    const now = Date.now();
    receiver.ownerId = () => 'pod-a';
    receiver.owned = ['0'];
    receiver.partitions = [
      {
        partitionId: '0',
        lastProcessedSequenceNumber: 9,
        lagEvents: 0,
        lagSeconds: 0,
        state: 'reading',
        stateSeconds: 5,
      },
    ];
    receiver.counters = { ...receiver.counters, eventsFailedDecode: 3, eventsDeadLettered: 2 };
    receiver.hubLag = () => [
      {
        partitionId: '0',
        owner: 'pod-a',
        checkpointSequenceNumber: 9,
        lastEnqueuedSequenceNumber: 9,
        lagEvents: 0,
        checkpointAgeSeconds: 4,
        refreshedAt: new Date(now),
        stale: false,
      },
      {
        partitionId: '1',
        owner: 'pod-b',
        checkpointSequenceNumber: 5,
        lastEnqueuedSequenceNumber: 1205,
        lagEvents: 1200,
        checkpointAgeSeconds: 600,
        lastEnqueuedTime: new Date(now - 1_800_000),
        refreshedAt: new Date(now),
        stale: false,
      },
    ];
    receiver.fleetOwnership = async () => [
      { partitionId: '0', ownerId: 'pod-a', leaseState: 'leased', epoch: 3, lastModified: new Date(now) },
      { partitionId: '1', ownerId: 'pod-b', leaseState: 'leased', epoch: 7, lastModified: new Date(now) },
    ];
    receiver.emit({
      type: 'exportFailed',
      partitionId: '1',
      records: 4,
      permanent: false,
      error: new Error('refused; SharedAccessKey=topsecret123'),
    });

    const html = await (await get(`${zpages}/debug/eventhubz`)).text();
    const row = (pid: string) => new RegExp(`<tr data-partition="${pid}"[^>]*>(.*?)</tr>`).exec(html)?.[1] ?? '';
    assert.match(html, /<tr data-partition="0" data-owner="pod-a">/);
    assert.match(html, /<tr data-partition="1" data-owner="pod-b">/);
    assert.match(row('0'), /\(this instance\)/);
    assert.match(row('1'), /data-label="Epoch"><span>7</);
    assert.match(row('1'), /data-label="Lease"><span>leased</);
    assert.match(row('1'), /data-label="Lag \(events\)"><span>1,200</);
    // Another instance reads partition 1: its time lag is the lower bound from the newest event's time (30 min).
    assert.match(row('1'), /data-label="Lag \(time\)"><span>≥ 30m 00s</);
    assert.match(row('1'), /30m 00s \(50 % used\)/, 'headroom: retention 1h minus 30 min of lag');
    assert.match(row('1'), /<svg class="lag-chart"[^>]*data-samples="1"/);
    assert.match(html, /<svg class="ownership-map"/);
    assert.match(html, /decode failures<\/span><b class="warn">3</);
    assert.match(html, /dead-lettered<\/span><b class="bad">2</);
    assert.match(html, /exportFailed/);
    assert.match(html, /SharedAccessKey=\*\*\*/);
    assert.doesNotMatch(html, /topsecret123/, 'secrets never reach the page');

    // The checkpoint store failing: the page still renders, and says so.
    receiver.fleetOwnership = async () => {
      throw new Error('storage down');
    };
    const failing = await (await get(`${zpages}/debug/eventhubz`)).text();
    assert.match(failing, /Ownership could not be read from the checkpoint store: Error: storage down/);
    assert.match(failing, /<tr data-partition="1" data-owner="pod-b">/, 'owners then come from the lag monitor');
  },
);

test('pprof serves CPU and allocation profiles and heap snapshots on demand, one CPU profile at a time', async (t) => {
  const { pprof } = await startService(t);
  const index = await get(`${pprof}/debug/pprof/`);
  assert.equal(index.status, 200);
  assert.match(await index.text(), /profile\?seconds=N/);

  const running = get(`${pprof}/debug/pprof/profile?seconds=1`);
  // The second request must find the first running: wait for it to be accepted before asking.
  let busy: Response | undefined;
  for (let i = 0; i < 50 && busy?.status !== 409; i++) {
    busy = await get(`${pprof}/debug/pprof/profile?seconds=1`);
    if (busy.status !== 409) await busy.arrayBuffer();
  }
  const res = await running;
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-disposition')!, /\.cpuprofile"/);
  const profile = (await res.json()) as { nodes: unknown[]; samples: unknown[]; startTime: number; endTime: number };
  assert.ok(Array.isArray(profile.nodes) && profile.nodes.length > 0, 'a V8 profile with call tree nodes');
  assert.ok(profile.endTime > profile.startTime);
  assert.equal(busy?.status, 409, 'a second profile while one runs is refused');
  assert.equal((await get(`${pprof}/debug/pprof/profile?seconds=abc`)).status, 400);

  // Allocations of the next half second, freed objects included: the service's own timers and requests, and
  // the garbage made here while it samples.
  const sampled = get(`${pprof}/debug/pprof/allocs?seconds=0.5`);
  let garbage = 0;
  for (let i = 0; i < 200; i++) {
    garbage += JSON.stringify(Array.from({ length: 1000 }, (_, n) => ({ n }))).length;
    await new Promise((resolve) => setImmediate(resolve));
  }
  const allocs = await sampled;
  assert.equal(allocs.status, 200);
  assert.match(allocs.headers.get('content-disposition')!, /\.heapprofile"/);
  type Node = { callFrame: { functionName: string }; selfSize: number; children: Node[] };
  const sampling = (await allocs.json()) as { head: Node; samples: { size: number }[] };
  const total = (n: Node): number => n.selfSize + n.children.reduce((sum, c) => sum + total(c), 0);
  assert.ok(garbage > 0 && sampling.samples.length > 0, 'a V8 sampling heap profile with samples');
  assert.ok(total(sampling.head) >= 1_000_000, `freed objects are counted: ${total(sampling.head)} bytes sampled`);
  assert.equal((await get(`${pprof}/debug/pprof/allocs?seconds=0`)).status, 400);

  const heap = await get(`${pprof}/debug/pprof/heap`);
  assert.equal(heap.status, 200);
  assert.match(heap.headers.get('content-disposition')!, /\.heapsnapshot"/);
  const reader = heap.body!.getReader();
  let head = '';
  while (head.length < 30) {
    const { value, done } = await reader.read();
    if (done) break;
    head += Buffer.from(value).toString('utf8');
  }
  await reader.cancel();
  assert.match(head, /^\{"snapshot":\{"meta"/, 'a V8 heap snapshot');
});

test('pprof refuses an endpoint off loopback, naming the key and why', async () => {
  const loaded = await loadConfig({
    configs: [`yaml:${CONFIG.replace('pprof: { endpoint: "127.0.0.1:0" }', 'pprof: { endpoint: "0.0.0.0:1777" }')}`],
    env: {},
  });
  assert.throws(
    () => resolveConfig(loaded.raw, testComponents().components),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.match(e.message, /extensions\.pprof\.endpoint: must be a loopback address .*kubectl port-forward/);
      return true;
    },
  );
});
