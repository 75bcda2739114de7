import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { startMetricsEndpoint } from '../../../src/telemetry/metrics-endpoint.ts';
import { ReceiverMetrics } from '../../../src/telemetry/receiver-metrics.ts';
import { FakeReceiver } from '../distribution/fake-components.ts';
import type { HubPartitionLag } from '../../../src/receiver/receiver-status.ts';

/** `name{labels} value` lines of a Prometheus text exposition, as a map from `name{labels}` to value. */
function parseExposition(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)/.exec(line);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

/** Scrapes the endpoint's Prometheus page. */
async function scrape(port: number): Promise<Map<string, number>> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5_000) });
  return parseExposition(await res.text());
}

/** The labels of a receiver `azure_event_hub` on AMQP. */
const L = 'receiver="azure_event_hub",transport="amqp"';

/** A metrics endpoint (shut down after the test) with one fake receiver `azure_event_hub` registered. */
async function oneReceiver(
  t: TestContext,
): Promise<{ endpoint: Awaited<ReturnType<typeof startMetricsEndpoint>>; r: FakeReceiver }> {
  const endpoint = await startMetricsEndpoint({ address: '127.0.0.1:0' });
  t.after(() => endpoint.shutdown());
  const r = new FakeReceiver('azure_event_hub', { consume: async () => {} }, []);
  new ReceiverMetrics(endpoint.meter).add('azure_event_hub', r);
  return { endpoint, r };
}

test(
  'the Prometheus endpoint on port 0 serves counters, lag per partition, owned partitions and export latency, ' +
    'moving with the receiver',
  async (t) => {
    const endpoint = await startMetricsEndpoint({ address: '127.0.0.1:0' });
    t.after(() => endpoint.shutdown());
    assert.notEqual(endpoint.port, 0);
    const metrics = new ReceiverMetrics(endpoint.meter);
    const audit = new FakeReceiver('azure_event_hub/audit', { consume: async () => {} }, []);
    const other = new FakeReceiver('azure_event_hub/metrics', { consume: async () => {} }, []);
    metrics.add('azure_event_hub/audit', audit);
    metrics.add('azure_event_hub/metrics', other);
    const scrape = async () => {
      const res = await fetch(`http://127.0.0.1:${endpoint.port}/metrics`, { signal: AbortSignal.timeout(5_000) });
      assert.equal(res.status, 200);
      return parseExposition(await res.text());
    };
    const A = 'receiver="azure_event_hub/audit",transport="amqp"';

    audit.counters = {
      ...audit.counters,
      recordsAccepted: 10,
      recordsRefused: 1,
      eventsReceived: 4,
      bytesReceived: 2048,
    };
    audit.owned = ['0', '1'];
    audit.partitions = [
      {
        partitionId: '0',
        lastProcessedSequenceNumber: 3,
        lagEvents: 7,
        lagSeconds: 12.5,
        retentionUsedRatio: 0.25,
        checkpointAgeSeconds: 2,
        state: 'reading',
        stateSeconds: 5,
      },
      {
        partitionId: '1',
        lastProcessedSequenceNumber: -1,
        lagEvents: 0,
        lagSeconds: 0,
        state: 'retrying',
        stateSeconds: 40,
      },
    ];
    audit.emit({ type: 'exported', partitionId: '0', records: 10, events: 4, durationMs: 30 });
    let m = await scrape();
    assert.equal(m.get(`otelcol_receiver_accepted_log_records_total{${A}}`), 10);
    assert.equal(m.get(`otelcol_receiver_refused_log_records_total{${A}}`), 1);
    assert.equal(m.get(`otelcol_receiver_azureeventhub_events_received_total{${A}}`), 4);
    assert.equal(m.get(`otelcol_receiver_azureeventhub_received_bytes_total{${A}}`), 2048);
    assert.equal(m.get(`otelcol_receiver_azureeventhub_owned_partitions{${A}}`), 2);
    assert.equal(m.get(`otelcol_receiver_azureeventhub_partition_lag_events{${A},partition="0"}`), 7);
    assert.equal(m.get(`otelcol_receiver_azureeventhub_partition_lag_seconds{${A},partition="0"}`), 12.5);
    assert.equal(m.get(`otelcol_receiver_azureeventhub_partition_retention_used_ratio{${A},partition="0"}`), 0.25);
    assert.equal(
      m.get(`otelcol_receiver_azureeventhub_partition_retention_used_ratio{${A},partition="1"}`),
      undefined,
      'no ratio without retention',
    );
    assert.equal(m.get(`otelcol_receiver_azureeventhub_export_duration_seconds_count{${A},partition="0"}`), 1);
    assert.equal(m.get(`otelcol_receiver_azureeventhub_export_duration_seconds_sum{${A},partition="0"}`), 0.03);
    assert.equal(
      m.get('otelcol_receiver_accepted_log_records_total{receiver="azure_event_hub/metrics",transport="amqp"}'),
      0,
    );
    assert.equal(m.get(`otelcol_receiver_azureeventhub_partition_state{${A},partition="1",state="retrying"}`), 1);
    assert.equal(m.get(`otelcol_receiver_azureeventhub_partition_state{${A},partition="1",state="reading"}`), 0);
    assert.equal(m.get(`otelcol_receiver_azureeventhub_partition_state{${A},partition="0",state="reading"}`), 1);

    audit.counters = { ...audit.counters, recordsAccepted: 25 };
    audit.partitions = [
      {
        partitionId: '0',
        lastProcessedSequenceNumber: 9,
        lagEvents: 1,
        lagSeconds: 0.5,
        state: 'reading',
        stateSeconds: 1,
      },
    ];
    m = await scrape();
    assert.equal(m.get(`otelcol_receiver_accepted_log_records_total{${A}}`), 25);
    assert.equal(m.get(`otelcol_receiver_azureeventhub_partition_lag_events{${A},partition="0"}`), 1);
    assert.equal(
      m.get(`otelcol_receiver_azureeventhub_partition_lag_events{${A},partition="1"}`),
      undefined,
      'a partition given away has no frozen lag',
    );
    assert.equal(m.get(`otelcol_receiver_azureeventhub_partition_retention_used_ratio{${A},partition="0"}`), undefined);
    assert.equal(
      m.get(`otelcol_receiver_accepted_log_records_total{receiver="azure_event_hub/metrics",transport="amqp"}`),
      0,
      'counters stay',
    );
  },
);

test('a receiver whose stats throw does not break the scrape', async (t) => {
  const endpoint = await startMetricsEndpoint({ address: '127.0.0.1:0' });
  t.after(() => endpoint.shutdown());
  const metrics = new ReceiverMetrics(endpoint.meter);
  const broken = new FakeReceiver('r', { consume: async () => {} }, []);
  broken.stats = () => {
    throw new Error('shutting down');
  };
  metrics.add('r', broken);
  const res = await fetch(`http://127.0.0.1:${endpoint.port}/metrics`, { signal: AbortSignal.timeout(5_000) });
  assert.equal(res.status, 200);
  assert.match(await res.text(), /owned_partitions\{receiver="r",transport="amqp"\} 0/);
});

test('hub-wide lag: every partition with its owner label, from hubLag(); none for a receiver without it', async (t) => {
  const endpoint = await startMetricsEndpoint({ address: '127.0.0.1:0' });
  t.after(() => endpoint.shutdown());
  let now = 1_700_000_000_000;
  const metrics = new ReceiverMetrics(endpoint.meter, { now: () => now });
  const audit = new FakeReceiver('azure_event_hub/audit', { consume: async () => {} }, []);
  const plain = new FakeReceiver('azure_event_hub/plain', { consume: async () => {} }, []);
  metrics.add('azure_event_hub/audit', audit);
  metrics.add('azure_event_hub/plain', plain);
  const refreshedAt = new Date(now - 20_000);
  let rows: HubPartitionLag[] = [
    {
      partitionId: '0',
      owner: 'pod-a',
      checkpointSequenceNumber: 89,
      lastEnqueuedSequenceNumber: 99,
      lagEvents: 10,
      checkpointAgeSeconds: 4,
      refreshedAt,
      stale: false,
    },
    // no checkpoint: no lag series
    { partitionId: '1', owner: '', lastEnqueuedSequenceNumber: 49, refreshedAt, stale: false },
    {
      partitionId: '2',
      owner: 'pod-gone',
      checkpointSequenceNumber: 5,
      lastEnqueuedSequenceNumber: 500,
      lagEvents: 495,
      checkpointAgeSeconds: 900,
      refreshedAt,
      stale: true,
    },
  ];
  audit.hubLag = () => rows;
  const A = 'receiver="azure_event_hub/audit",transport="amqp"';
  const scrape = async () => {
    const res = await fetch(`http://127.0.0.1:${endpoint.port}/metrics`, { signal: AbortSignal.timeout(5_000) });
    assert.equal(res.status, 200);
    return res.text();
  };

  let text = await scrape();
  let m = parseExposition(text);
  assert.equal(m.get(`otelcol_receiver_azureeventhub_hub_partition_lag_events{${A},partition="0",owner="pod-a"}`), 10);
  assert.equal(
    m.get(`otelcol_receiver_azureeventhub_hub_partition_lag_events{${A},partition="2",owner="pod-gone"}`),
    495,
  );
  assert.ok(
    ![...m.keys()].some(
      (k) => k.startsWith('otelcol_receiver_azureeventhub_hub_partition_lag_events') && k.includes('partition="1"'),
    ),
    'unknown lag is absent, not 0',
  );
  assert.equal(
    m.get(`otelcol_receiver_azureeventhub_hub_partition_checkpoint_age_seconds{${A},partition="0",owner="pod-a"}`),
    4,
  );
  assert.equal(
    m.get(`otelcol_receiver_azureeventhub_hub_partition_refresh_age_seconds{${A},partition="1",owner=""}`),
    20,
  );
  assert.doesNotMatch(
    text,
    /azureeventhub_hub_partition_[a-z_]+\{receiver="azure_event_hub\/plain"/,
    'a receiver without hubLag adds no hub series',
  );

  // The owner moves: the series follows it; a hubLag that throws empties the hub series but not the scrape.
  now += 10_000;
  rows = [{ ...rows[0]!, owner: 'pod-b', lagEvents: 3 }];
  m = parseExposition(await scrape());
  assert.equal(m.get(`otelcol_receiver_azureeventhub_hub_partition_lag_events{${A},partition="0",owner="pod-b"}`), 3);
  assert.equal(
    m.get(`otelcol_receiver_azureeventhub_hub_partition_lag_events{${A},partition="0",owner="pod-a"}`),
    undefined,
    "the old owner's series is gone, not frozen",
  );
  assert.equal(
    m.get(`otelcol_receiver_azureeventhub_hub_partition_lag_events{${A},partition="2",owner="pod-gone"}`),
    undefined,
  );
  assert.equal(
    m.get(`otelcol_receiver_azureeventhub_hub_partition_refresh_age_seconds{${A},partition="0",owner="pod-b"}`),
    30,
  );
  audit.hubLag = () => {
    throw new Error('shutting down');
  };
  text = await scrape();
  assert.doesNotMatch(text, /hub_partition_lag_events\{/);
  assert.match(text, /owned_partitions\{receiver="azure_event_hub\/audit",transport="amqp"\} 0/);
});

test("metric points and spans are counted per signal under the collector's names", async (t) => {
  const { endpoint, r } = await oneReceiver(t);
  r.counters = {
    ...r.counters,
    recordsAccepted: 1,
    metricPointsAccepted: 12,
    metricPointsRefused: 2,
    spansAccepted: 7,
    spansRefused: 3,
    metricPointsDecoded: 14,
    spansDecoded: 10,
  };
  const m = await scrape(endpoint.port);
  assert.equal(m.get(`otelcol_receiver_accepted_log_records_total{${L}}`), 1);
  assert.equal(m.get(`otelcol_receiver_accepted_metric_points_total{${L}}`), 12);
  assert.equal(m.get(`otelcol_receiver_refused_metric_points_total{${L}}`), 2);
  assert.equal(m.get(`otelcol_receiver_accepted_spans_total{${L}}`), 7);
  assert.equal(m.get(`otelcol_receiver_refused_spans_total{${L}}`), 3);
  assert.equal(m.get(`otelcol_receiver_azureeventhub_metric_points_decoded_total{${L}}`), 14);
  assert.equal(m.get(`otelcol_receiver_azureeventhub_spans_decoded_total{${L}}`), 10);
});

test(
  'memory.limit_mib: memory_paused is 1 while reading waits, memory_pauses counts the pauses; absent without the ' +
    'option',
  async (t) => {
    const { endpoint, r } = await oneReceiver(t);
    assert.equal((await scrape(endpoint.port)).get(`otelcol_receiver_azureeventhub_memory_paused{${L}}`), undefined);
    const MiB = 1024 * 1024;
    r.memory = {
      limitBytes: 128 * MiB,
      paused: true,
      usageBytes: 150 * MiB,
      maxUsageBytes: 160 * MiB,
      forcedGcs: 3,
      pauses: 2,
    };
    let m = await scrape(endpoint.port);
    assert.equal(m.get(`otelcol_receiver_azureeventhub_memory_paused{${L}}`), 1);
    assert.equal(m.get(`otelcol_receiver_azureeventhub_memory_pauses_total{${L}}`), 2);
    r.memory = { ...r.memory, paused: false, usageBytes: 100 * MiB };
    m = await scrape(endpoint.port);
    assert.equal(m.get(`otelcol_receiver_azureeventhub_memory_paused{${L}}`), 0);
  },
);

test(
  'lease ownership: claims_paused is 1 while new claims wait for late renewals, claim_pauses counts ' + 'them',
  async (t) => {
    const { endpoint, r } = await oneReceiver(t);
    assert.equal((await scrape(endpoint.port)).get(`otelcol_receiver_azureeventhub_claims_paused{${L}}`), undefined);
    r.claimsPaused = true;
    r.counters = { ...r.counters, claimPauses: 3 };
    let m = await scrape(endpoint.port);
    assert.equal(m.get(`otelcol_receiver_azureeventhub_claims_paused{${L}}`), 1);
    assert.equal(m.get(`otelcol_receiver_azureeventhub_claim_pauses_total{${L}}`), 3);
    r.claimsPaused = false;
    m = await scrape(endpoint.port);
    assert.equal(m.get(`otelcol_receiver_azureeventhub_claims_paused{${L}}`), 0);
  },
);
