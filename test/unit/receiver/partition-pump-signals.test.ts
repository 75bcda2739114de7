/**
 * The partition pump with metric points and spans, through a decoder the test controls (hand-made points
 * and spans): they are counted, delivered, checkpointed only after acceptance, and refused ones are
 * dead-lettered by their events as log records are.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { PartitionPump } from '../../../src/receiver/partition-pump.ts';
import { Checkpointer } from '../../../src/receiver/checkpointer.ts';
import { createPumpCounters } from '../../../src/receiver/internal/pump-counters.ts';
import { noopLogger, type Logger } from '../../../src/component/logger.ts';
import type { Signal } from '../../../src/pipeline/signals.ts';
import { PermanentError } from '../../../src/component/errors.ts';
import type { Decoder } from '../../../src/decode/decoder.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import type { DeadLetterEntry, DeadLetterStore } from '../../../src/pipeline/dead-letter.ts';
import type { ReceiverStatus } from '../../../src/receiver/receiver-status.ts';
import { PartialRefusalError } from '../../../src/pipeline/partial-refusal.ts';
import { ATTR_EVENTHUBS_SEQUENCE_NUMBER } from '../../../src/decode/index.ts';
import { FakeHub, RecordingStore, until } from './fakes.ts';
import { makePoint, makeRecord, makeSpan } from '../pipeline/records.ts';

const scope = { fullyQualifiedNamespace: 'fake', eventHubName: 'hub', consumerGroup: '$Default' };
const context = { namespace: 'fake', eventHubName: 'hub', consumerGroup: '$Default', partitionId: '0' };
const STATS = { failedEvents: 0, sanitizedEvents: 0, timestampFallbacks: 0 };
const seqOf = (n: number) => ({ [ATTR_EVENTHUBS_SEQUENCE_NUMBER]: n });

/** Every event becomes two metric points (with its sequence number unless `traceable` is false). */
function pointsOnly(traceable = true): Decoder {
  return (events) => ({
    records: [],
    metrics: events.flatMap((e) =>
      [0, 1].map((k) => makePoint(`p${e.sequenceNumber}.${k}`, k, traceable ? seqOf(e.sequenceNumber) : {})),
    ),
    stats: STATS,
  });
}

/** Event n becomes a log record (n % 3 = 0), a metric point (1) or a span (2), with its sequence number. */
const oneSignalPerEvent: Decoder = (events) => {
  const records: ReadableLogRecord[] = [];
  const metrics = [];
  const spans = [];
  for (const e of events) {
    const n = e.sequenceNumber;
    if (n % 3 === 0) records.push(makeRecord(`r${n}`, seqOf(n)));
    else if (n % 3 === 1) metrics.push(makePoint(`p${n}`, n, seqOf(n)));
    else spans.push(makeSpan(`s${n}`, n, seqOf(n)));
  }
  return { records, metrics, spans, stats: STATS };
};

function setup(opts: {
  decode: Decoder;
  consume: (b: SignalBatch) => Promise<void>;
  deadLetter?: DeadLetterStore;
  everyN?: number;
  signals?: ReadonlySet<Signal>;
  logger?: Logger;
}) {
  const hub = new FakeHub();
  const store = new RecordingStore();
  const statuses: ReceiverStatus[] = [];
  const counters = createPumpCounters();
  const checkpointer = new Checkpointer({
    store,
    scope,
    partitionId: '0',
    intervalMs: 60_000,
    everyNEvents: opts.everyN ?? 0,
  });
  const pump = new PartitionPump({
    hub,
    partitionId: '0',
    start: { kind: 'earliest' },
    prefetchCount: 10,
    maxBatchSize: 10,
    maxWaitMs: 20,
    decode: opts.decode,
    context,
    consumer: { consume: opts.consume },
    checkpointer,
    deadLetter: opts.deadLetter,
    counters,
    logger: opts.logger ?? noopLogger,
    signals: opts.signals,
    emit: (s) => statuses.push(s),
    reopenInitialMs: 1,
    reopenMaxMs: 5,
    holdInitialMs: 1,
    holdMaxMs: 5,
  });
  return { hub, store, statuses, counters, pump };
}

test('events holding only metric points are exported, counted and checkpointed only after acceptance', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const accepted: string[] = [];
  const { hub, store, pump, counters, statuses } = setup({
    decode: pointsOnly(),
    everyN: 1,
    consume: async (b) => {
      await gate;
      accepted.push(...b.metrics!.map((p) => p.name));
      assert.deepEqual(b.records, []);
    },
  });
  hub.append('0', 5);
  void pump.run();
  await until(() => counters.metricPointsDecoded === 10);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(store.data.get('0'), undefined, 'no checkpoint while the points are not accepted');
  release();
  await until(() => store.data.get('0')?.sequenceNumber === 4);
  await pump.stop(1_000);
  assert.equal(accepted.length, 10);
  assert.equal(counters.metricPointsAccepted, 10);
  assert.equal(counters.recordsAccepted, 0);
  const exported = statuses.find((s) => s.type === 'exported');
  assert.deepEqual(exported && { r: exported.records, p: exported.metricPoints, s: exported.spans }, {
    r: 0,
    p: 10,
    s: 0,
  });
});

test(
  'a partial refusal of spans dead-letters only the events behind them, saying which signal was ' + 'refused',
  async () => {
    const entries: DeadLetterEntry[] = [];
    const { hub, store, pump, counters } = setup({
      decode: oneSignalPerEvent,
      consume: async (b) => {
        if (!b.spans?.length) return;
        // The traces pipeline refused the first span for good; the records and points went out.
        const delivered = b.records.length + (b.metrics?.length ?? 0) + b.spans.length - 1;
        throw new PartialRefusalError(
          [{ records: [], spans: [b.spans[0]!], error: new PermanentError('span rejected') }],
          delivered,
        );
      },
      deadLetter: { write: async (e) => void entries.push(...e) },
    });
    hub.append('0', 9);
    void pump.run();
    await until(() => store.data.has('0') || counters.eventsDeadLettered > 0);
    await pump.stop(1_000);
    assert.deepEqual(
      entries.map((e) => e.event.sequenceNumber),
      [2],
      'only the event of the refused span',
    );
    assert.deepEqual(entries[0]!.signals, ['traces']);
    assert.equal(entries[0]!.error.message, 'span rejected');
    const { recordsAccepted, metricPointsAccepted, spansAccepted, recordsRefused, metricPointsRefused, spansRefused } =
      counters;
    assert.deepEqual(
      { recordsAccepted, metricPointsAccepted, spansAccepted, recordsRefused, metricPointsRefused, spansRefused },
      {
        recordsAccepted: 3,
        metricPointsAccepted: 3,
        spansAccepted: 2,
        recordsRefused: 0,
        metricPointsRefused: 0,
        spansRefused: 1,
      },
    );
    assert.equal(
      store.data.get('0')?.sequenceNumber,
      8,
      'checkpointed past the batch once the refused event is durable',
    );
  },
);

test('without a dead-letter store, a partial refusal of metric points retries only the refused points', async () => {
  const sent: string[][] = [];
  let first = true;
  const { hub, pump, counters } = setup({
    decode: oneSignalPerEvent,
    consume: async (b) => {
      sent.push([
        ...b.records.map((r) => String(r.body)),
        ...(b.metrics ?? []).map((p) => p.name),
        ...(b.spans ?? []).map((s) => s.name),
      ]);
      if (!first) return;
      first = false;
      throw new PartialRefusalError(
        [{ records: [], metrics: [b.metrics![1]!], error: new PermanentError('point rejected') }],
        5,
      );
    },
  });
  hub.append('0', 6);
  void pump.run();
  await until(() => sent.length === 2);
  await pump.stop(1_000);
  assert.deepEqual(sent[0], ['r0', 'r3', 'p1', 'p4', 's2', 's5']);
  assert.deepEqual(sent[1], ['p4'], 'the held batch is only what was refused');
  assert.equal(counters.metricPointsAccepted, 2);
  assert.equal(counters.recordsAccepted, 2);
  assert.equal(counters.spansAccepted, 2);
});

test('refused metric points that name no event dead-letter the whole batch: nothing is lost', async () => {
  const entries: DeadLetterEntry[] = [];
  const { hub, store, pump, counters } = setup({
    decode: pointsOnly(false),
    consume: async (b) => {
      throw new PartialRefusalError(
        [{ records: [], metrics: [b.metrics![0]!], error: new PermanentError('no') }],
        b.metrics!.length - 1,
      );
    },
    deadLetter: { write: async (e) => void entries.push(...e) },
  });
  hub.append('0', 3);
  void pump.run();
  await until(() => counters.eventsDeadLettered === 3);
  await pump.stop(1_000);
  assert.deepEqual(
    entries.map((e) => e.event.sequenceNumber),
    [0, 1, 2],
  );
  assert.deepEqual(entries[0]!.signals, ['metrics']);
  assert.equal(counters.metricPointsRefused, 6);
  assert.equal(store.data.get('0')?.sequenceNumber, 2);
});

test(
  'items of a signal no pipeline takes are counted and logged, not handed over; the events are checkpointed ' + 'past',
  async () => {
    const sent: SignalBatch[] = [];
    const warnings: { message: string; fields: Record<string, unknown> }[] = [];
    const logger: Logger = {
      debug() {},
      info() {},
      error() {},
      warn: (message, fields = {}) => void warnings.push({ message, fields }),
      child: () => logger,
    };
    const { hub, store, pump, counters } = setup({
      decode: oneSignalPerEvent,
      signals: new Set(['metrics']),
      logger,
      consume: async (b) => void sent.push(b),
    });
    hub.append('0', 6);
    void pump.run();
    await until(() => counters.metricPointsAccepted === 2);
    await pump.stop(1_000);
    assert.deepEqual(
      sent.map((b) => [b.records.length, b.metrics?.length, b.spans?.length]),
      [[0, 2, undefined]],
    );
    assert.equal(counters.itemsWithoutPipeline, 4, 'two log records and two spans');
    assert.equal(counters.recordsDecoded, 2, 'decoded, then set aside');
    assert.equal(store.data.get('0')?.sequenceNumber, 5);
    const line = warnings.find((w) => /no pipeline of this receiver takes/.test(w.message));
    assert.deepEqual(line && { r: line.fields.records, p: line.fields.metricPoints, s: line.fields.spans }, {
      r: 2,
      p: 0,
      s: 2,
    });
  },
);
