/**
 * `/debug/eventhubz` in a real headless Chromium (Debian's `chromium`, driven by playwright-core) against a
 * running 2-instance fleet: two services, each with a receiver on the emulator, sharing the partitions through
 * blob leases on Azurite. The page must show every partition with its owner, the lag charts, and fit a phone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { chromium } from 'playwright-core';
import type { Logger } from '../../../src/component/logger.ts';
import { noopLogger } from '../../../src/component/logger.ts';
import { loadConfig } from '../../../src/config/load-config.ts';
import { builtinComponents } from '../../../src/distribution/builtin-components.ts';
import type { ZPagesExtension } from '../../../src/extensions/zpages/zpages-extension.ts';
import { resolveConfig } from '../../../src/distribution/resolve-config.ts';
import { Service } from '../../../src/distribution/service.ts';
import { startAzurite, randomName } from '../../helpers/azurite.ts';
import { findChromium, noChromiumMessage } from '../../helpers/chromium.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';

const PARTITIONS = 4;
const OWNERS = ['pod-a', 'pod-b'];

/** Where the screenshots go: TEST_OUTPUT_DIR when set, else a fresh temp dir (kept, and printed). */
function outputDir(): string {
  const base = process.env.TEST_OUTPUT_DIR;
  if (base) {
    const dir = join(base, 'zpages');
    mkdirSync(dir, { recursive: true });
    return dir;
  }
  return mkdtempSync(join(tmpdir(), 'otelcol-zpages-'));
}

/** Collects log lines (message + fields) so the test can read the bound endpoint from the log. */
function recordingLogger(
  lines: { message: string; fields: Record<string, unknown> }[],
  base: Record<string, unknown> = {},
): Logger {
  const log = (message: string, fields: Record<string, unknown> = {}) =>
    lines.push({ message, fields: { ...base, ...fields } });
  return { debug: log, info: log, warn: log, error: log, child: (f) => recordingLogger(lines, { ...base, ...f }) };
}

function config(
  owner: string,
  connection: string,
  storage: string,
  container: string,
  dir: string,
  zpages: boolean,
): string {
  return JSON.stringify({
    receivers: {
      azure_event_hub: {
        connection,
        format: 'raw',
        start_position: 'earliest',
        hub_lag_interval: '1s',
        retention: '1h',
        checkpoint: { interval: '200ms' },
        ownership: { owner_id: owner, update_interval: '500ms', lease_duration: '15s' },
        blob_checkpoint_store: { connection: storage, container_name: container },
      },
    },
    exporters: { file: { path: join(dir, `${owner}.jsonl`) } },
    extensions: zpages ? { zpages: { endpoint: '127.0.0.1:0', sample_interval: '1s' } } : {},
    service: {
      extensions: zpages ? ['zpages'] : [],
      pipelines: { logs: { receivers: ['azure_event_hub'], exporters: ['file'] } },
      telemetry: { metrics: { level: 'none' } },
    },
  });
}

test('eventhubz in headless Chromium shows every partition of a 2-instance fleet with its owner and lag charts', {
  timeout: 180_000,
}, async (t) => {
  const executablePath = findChromium();
  if (!executablePath) assert.fail(noChromiumMessage());

  const azurite = await startAzurite();
  t.after(() => azurite.stop());
  const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: PARTITIONS });
  const container = randomName('zpages');
  await BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(container).create();
  const dir = outputDir();
  for (let p = 0; p < PARTITIONS; p++)
    emulator.append(
      hubName,
      String(p),
      Array.from({ length: 20 }, (_, i) => ({ body: `e${i}` })),
    );

  const components = await builtinComponents();
  const lines: { message: string; fields: Record<string, unknown> }[] = [];
  const services: Service[] = [];
  t.after(async () => {
    for (const s of services) await s.shutdown();
  });
  for (const owner of OWNERS) {
    const zpages = owner === OWNERS[0];
    const yaml = config(owner, connectionString, azurite.connectionString, container, dir, zpages);
    const loaded = await loadConfig({ configs: [`yaml:${yaml}`], env: {} });
    const service = await Service.start(resolveConfig(loaded.raw, components), {
      logger: zpages ? recordingLogger(lines) : noopLogger,
    });
    services.push(service);
  }
  const zpages = services[0]!.extension('zpages') as ZPagesExtension;
  const listening = lines.find((l) => l.message === 'zpages endpoint listening');
  assert.ok(listening, 'the service logs where zpages listen');
  const port = zpages.address()!.port;
  assert.equal(listening.fields.endpoint, `127.0.0.1:${port}`);

  // Uneven traffic while the fleet settles, so the charts have lag to draw.
  let tick = 0;
  const traffic = setInterval(() => {
    tick++;
    for (let p = 0; p < PARTITIONS; p++) {
      const n = (tick * (p + 3)) % 11;
      emulator.append(
        hubName,
        String(p),
        Array.from({ length: n }, () => ({ body: 'more' })),
      );
    }
  }, 300);
  t.after(() => clearInterval(traffic));

  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  t.after(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const base = `http://127.0.0.1:${port}`;
  const foreign: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(base)) foreign.push(r.url());
  });

  type Row = { partition: string; owner: string; cells: string[] };
  const readRows = () =>
    page.$$eval('section.receiver tbody tr[data-partition]', (trs) =>
      trs.map((tr) => ({
        partition: tr.getAttribute('data-partition') ?? '',
        owner: tr.getAttribute('data-owner') ?? '',
        cells: [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''),
      })),
    );
  // Wait on state, in one page load: the fleet is balanced (each instance owns half the partitions, every lease
  // held, so no hand-off is under way), the lag monitor has read every partition (a number in the lag column,
  // nothing stale), and every chart holds a few samples (the count the page itself reports).
  let rows: Row[];
  let samples: number[];
  let why: string;
  const deadline = Date.now() + 120_000;
  for (;;) {
    await page.goto(`${base}/debug/eventhubz`);
    rows = await readRows();
    samples = await page.$$eval('svg.lag-chart', (svgs) => svgs.map((s) => Number(s.getAttribute('data-samples'))));
    const balanced = OWNERS.every((o) => rows.filter((r) => r.owner === o).length === PARTITIONS / 2);
    why =
      rows.length !== PARTITIONS
        ? 'not every partition listed'
        : !balanced
          ? 'not balanced'
          : !rows.every((r) => r.cells[3] === 'leased')
            ? 'a lease not held'
            : !rows.every((r) => /^\d/.test(r.cells[6] ?? '') && !/stale/.test(r.cells[4] ?? ''))
              ? 'lag not read'
              : !(samples.length === PARTITIONS && samples.every((n) => n >= 15))
                ? 'charts not filled'
                : '';
    if (why === '') break;
    if (Date.now() > deadline) {
      assert.fail(`the page never showed the settled fleet (${why}); rows ${JSON.stringify(rows)}, samples ${samples}`);
    }
    await page.waitForTimeout(500);
  }
  clearInterval(traffic);

  assert.deepEqual(
    rows.map((r) => r.partition),
    ['0', '1', '2', '3'],
    'every partition, in order',
  );
  for (const r of rows) {
    assert.ok(OWNERS.includes(r.owner), `partition ${r.partition} has an owner of the fleet: ${r.owner}`);
    assert.match(r.cells[1]!, new RegExp(r.owner), 'the owner column names it');
    assert.equal(r.cells[3], 'leased', `partition ${r.partition}: its lease is held`);
    assert.match(r.cells[2]!, /^\d+$/, `partition ${r.partition}: an epoch from the ownership blob`);
    assert.match(r.cells[8]!, /% used/, 'retention headroom from the configured retention');
    assert.match(r.cells[4]!, /^[\d,]+ \(\d+s\)$/, `partition ${r.partition}: checkpoint sequence number and age`);
  }
  assert.equal(await page.locator('svg.ownership-map').count(), 1, 'an ownership map');
  assert.equal(await page.locator('svg.lag-chart').count(), PARTITIONS, 'one lag chart per partition');
  assert.ok((await page.locator('svg.lag-chart polygon').count()) >= 1, 'the charts draw the lag');
  assert.deepEqual(foreign, [], 'the page loads nothing from anywhere else');

  const wide = join(dir, 'eventhubz.png');
  await page.screenshot({ path: wide, fullPage: true });
  // A phone: the page must not scroll sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}/debug/eventhubz`);
  // A string: the test's tsconfig has no DOM types.
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
  assert.ok(overflow <= 1, `no horizontal scrolling on a 390 px screen (overflow ${overflow} px)`);
  const phone = join(dir, 'eventhubz-phone.png');
  await page.screenshot({ path: phone, fullPage: true });
  t.diagnostic(`screenshots: ${wide} ${phone}`);
  console.log(`eventhubz screenshots: ${wide} ${phone}`);
});
