import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { PartitionPump } from '../../../src/receiver/partition-pump.ts';
import type { PartitionPumpOptions } from '../../../src/receiver/partition-pump-options.ts';
import { Checkpointer } from '../../../src/receiver/checkpointer.ts';
import { createPumpCounters } from '../../../src/receiver/internal/pump-counters.ts';
import { noopLogger } from '../../../src/component/logger.ts';
import { DataRefusedError, PermanentError } from '../../../src/component/errors.ts';
import { RetriesExhaustedError } from '../../../src/pipeline/retry.ts';
import { BackendError, OwnershipLostError, type ReceivedEvent } from '../../../src/backends/consumer.ts';
import type { DeadLetterStore } from '../../../src/pipeline/dead-letter.ts';
import type { Decoder } from '../../../src/decode/decoder.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import type { ReceiverStatus } from '../../../src/receiver/receiver-status.ts';
import { FakeHub, RecordingStore, until } from './fakes.ts';
import type { Logger } from '../../../src/component/logger.ts';
import { PartialRefusalError, RequestTooLargeError } from '../../../src/pipeline/partial-refusal.ts';
import type { DeadLetterEntry } from '../../../src/pipeline/dead-letter.ts';
import { ATTR_EVENTHUBS_SEQUENCE_NUMBER } from '../../../src/decode/index.ts';
import { BatchProcessor } from '../../../src/processors/batch-processor.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';

/** Two records per event, each carrying its event's sequence number as the decoders do. */
const twoPerEvent: Decoder = (events) => ({
  records: events.flatMap((e) =>
    [0, 1].map(
      (k) =>
        ({
          hrTime: [0, 0],
          hrTimeObserved: [0, 0],
          body: `${e.sequenceNumber}.${k}`,
          attributes: { [ATTR_EVENTHUBS_SEQUENCE_NUMBER]: e.sequenceNumber },
          resource,
          instrumentationScope: { name: 't' },
          droppedAttributesCount: 0,
        }) as ReadableLogRecord,
    ),
  ),
  stats: { failedEvents: 0, sanitizedEvents: 0, timestampFallbacks: 0 },
});

/** A logger keeping its error lines. */
function errorLines(): Logger & { errors: { message: string; fields: Record<string, unknown> }[] } {
  const errors: { message: string; fields: Record<string, unknown> }[] = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: () => {},
    error: (message, fields = {}) => errors.push({ message, fields }),
    child: () => logger,
  };
  return Object.assign(logger, { errors });
}

const resource = resourceFromAttributes({});
const rawDecode: Decoder = (events) => ({
  records: events.map(
    (e) =>
      ({
        hrTime: [0, 0],
        hrTimeObserved: [0, 0],
        body: Buffer.from(e.body).toString(),
        attributes: { seq: e.sequenceNumber },
        resource,
        instrumentationScope: { name: 't' },
        droppedAttributesCount: 0,
      }) as ReadableLogRecord,
  ),
  stats: { failedEvents: 0, sanitizedEvents: 0, timestampFallbacks: 0 },
});
const scope = { fullyQualifiedNamespace: 'fake', eventHubName: 'hub', consumerGroup: '$Default' };
const context = { namespace: 'fake', eventHubName: 'hub', consumerGroup: '$Default', partitionId: '0' };

function setup(
  opts: {
    consume?: (b: SignalBatch, s?: AbortSignal) => Promise<void>;
    deadLetter?: DeadLetterStore;
    dropRefused?: boolean;
    intervalMs?: number;
    everyN?: number;
    stallTimeoutMs?: number;
    reopenInitialMs?: number;
    decode?: Decoder;
    logger?: Logger;
    receiverId?: string;
    deliveryWaitReportMs?: number;
    maxBatchesInFlight?: number;
    consumer?: Partial<SignalConsumer>;
  } = {},
) {
  const hub = new FakeHub();
  const store = new RecordingStore();
  const exported: number[] = [];
  const statuses: ReceiverStatus[] = [];
  const counters = createPumpCounters();
  const checkpointer = new Checkpointer({
    store,
    scope,
    partitionId: '0',
    intervalMs: opts.intervalMs ?? 60_000,
    everyNEvents: opts.everyN ?? 0,
  });
  const pump = new PartitionPump({
    hub,
    partitionId: '0',
    start: { kind: 'earliest' },
    prefetchCount: 10,
    maxBatchSize: 10,
    maxWaitMs: 20,
    decode: opts.decode ?? rawDecode,
    context,
    consumer: {
      consume:
        opts.consume ??
        (async (b) => {
          for (const r of b.records) exported.push(r.attributes.seq as number);
        }),
      ...opts.consumer,
    },
    checkpointer,
    deadLetter: opts.deadLetter,
    dropRefused: opts.dropRefused,
    counters,
    logger: opts.logger ?? noopLogger,
    emit: (s) => statuses.push(s),
    receiverId: opts.receiverId,
    reopenInitialMs: opts.reopenInitialMs ?? 1,
    reopenMaxMs: opts.reopenInitialMs ?? 5,
    stallTimeoutMs: opts.stallTimeoutMs,
    holdInitialMs: 1,
    holdMaxMs: 5,
    deliveryWaitReportMs: opts.deliveryWaitReportMs,
    maxBatchesInFlight: opts.maxBatchesInFlight,
  });
  return { hub, store, exported, statuses, counters, pump };
}

test('exports every event once, in order, and writes the final checkpoint on a graceful stop', async () => {
  const { hub, store, exported, pump, counters } = setup();
  hub.append('0', 95);
  void pump.run();
  await until(() => exported.length === 95);
  const end = await pump.stop(1_000);
  assert.equal(end.reason, 'stopped');
  assert.deepEqual(
    exported,
    Array.from({ length: 95 }, (_, i) => i),
  );
  assert.equal(store.data.get('0')?.sequenceNumber, 94);
  assert.equal(store.data.get('0')?.offset, '9400');
  assert.equal(counters.recordsAccepted, 95);
});

test(
  'a graceful stop stores the final checkpoint before it closes the reader (the owner level fences until ' + 'then)',
  async () => {
    // A processor that ignores our lease (the Python SDK's keeps a claim its store refused) is held off only by
    // our link's owner level: closing the link first would let it start from the checkpoint before the last.
    const { hub, store, exported, pump } = setup();
    const order: string[] = [];
    const open = hub.openPartition.bind(hub);
    hub.openPartition = async (...args: Parameters<typeof open>) => {
      const reader = await open(...args);
      return {
        ...reader,
        close: async () => {
          order.push('close');
          await reader.close();
        },
      };
    };
    const write = store.write.bind(store);
    store.write = async (...args: Parameters<typeof write>) => {
      await write(...args);
      order.push(`checkpoint ${args[1].sequenceNumber}`);
    };
    hub.append('0', 5);
    void pump.run();
    await until(() => exported.length === 5);
    await pump.stop(1_000);
    assert.deepEqual(order.slice(-2), ['checkpoint 4', 'close']);
  },
);

test(
  'checkpoints every N events when asked, never past an unresolved batch, even when a later one ' + 'resolved',
  async () => {
    let release!: () => void;
    let calls = 0;
    let resolved = 0;
    const gate = new Promise<void>((r) => (release = r));
    const { hub, store, pump } = setup({
      everyN: 10,
      consume: async () => {
        if (++calls === 3) await gate;
        resolved++;
      },
    });
    hub.append('0', 40);
    void pump.run();
    // Two batches in flight: batch 4 (seq 30..39) is handed over and resolved while batch 3 is held.
    await until(() => calls === 4 && resolved === 3);
    await new Promise((r) => setTimeout(r, 30));
    // Batches 1 and 2 resolved (seq 0..19); batch 3 is held by the consumer: the checkpoint must not pass 19.
    assert.equal(store.data.get('0')?.sequenceNumber, 19);
    assert.equal(pump.lastSequenceNumber, 19);
    release();
    await until(() => store.data.get('0')?.sequenceNumber === 39);
    await pump.stop(1_000);
  },
);

test(
  'a permanently refused batch goes to the dead-letter store, is counted, and only then checkpointed ' + 'past',
  async () => {
    const dead: number[] = [];
    let n = 0;
    const { hub, store, pump, counters, statuses } = setup({
      consume: async () => {
        if (n++ === 1) throw new PermanentError('schema rejected');
      },
      deadLetter: {
        write: async (entries) => {
          for (const e of entries) dead.push(e.event.sequenceNumber);
        },
      },
    });
    hub.append('0', 30);
    void pump.run();
    await until(() => counters.recordsAccepted === 20);
    await pump.stop(1_000);
    assert.deepEqual(
      dead,
      Array.from({ length: 10 }, (_, i) => 10 + i),
    );
    assert.equal(counters.eventsDeadLettered, 10);
    assert.equal(counters.recordsRefused, 10);
    assert.equal(store.data.get('0')?.sequenceNumber, 29);
    assert.ok(statuses.some((s) => s.type === 'deadLettered'));
  },
);

test(
  "a partial refusal dead-letters only the refused records' events, with their reason; one error line names the " +
    'store',
  async () => {
    const entries: DeadLetterEntry[] = [];
    const delivered: string[] = [];
    const tooLarge = new RequestTooLargeError(
      'otlp: record of 921700 bytes is larger than max_request_bytes (524288 bytes)',
      { limitBytes: 524_288, sizeBytes: 921_700 },
    );
    const logger = errorLines();
    const { hub, store, pump, counters } = setup({
      decode: twoPerEvent,
      logger,
      receiverId: 'azure_event_hub/logs',
      // Event 3's second record is too large; everything else goes out.
      consume: async (b) => {
        const refused = b.records.filter((r) => r.body === '3.1');
        for (const r of b.records) if (!refused.includes(r)) delivered.push(String(r.body));
        if (refused.length > 0)
          throw new PartialRefusalError([{ records: refused, error: tooLarge }], b.records.length - refused.length);
      },
      deadLetter: {
        write: async (e) => {
          entries.push(...e);
        },
        locationOf: (e) => `/var/lib/dl/${e.source.partitionId}.jsonl`,
      },
    });
    hub.append('0', 10);
    void pump.run();
    await until(() => store.data.get('0')?.sequenceNumber === 9 || counters.eventsDeadLettered > 0);
    await pump.stop(1_000);
    assert.deepEqual(
      entries.map((e) => [e.event.sequenceNumber, e.error.type, e.error.message]),
      [[3, 'request_too_large', tooLarge.message]],
    );
    assert.equal(delivered.length, 19, "every other record was delivered, event 3's first record included");
    assert.equal(counters.eventsDeadLettered, 1);
    assert.equal(counters.recordsRefused, 1);
    assert.equal(counters.recordsAccepted, 19);
    assert.equal(
      store.data.get('0')?.sequenceNumber,
      9,
      'checkpointed past the batch once the refused event was durable',
    );
    const line = logger.errors.find((l) => /dead-letter/.test(l.message));
    assert.ok(line, JSON.stringify(logger.errors));
    assert.deepEqual(
      { ...line.fields },
      {
        receiver: 'azure_event_hub/logs',
        partitionId: '0',
        events: 1,
        firstSequenceNumber: 3,
        lastSequenceNumber: 3,
        error: tooLarge.message,
        type: 'request_too_large',
        store: '/var/lib/dl/0.jsonl',
      },
    );
  },
);

test(
  'without a dead-letter store, a partial refusal holds the partition and retries only the refused ' + 'records',
  async () => {
    const attempts: string[][] = [];
    const { hub, store, pump, counters } = setup({
      decode: twoPerEvent,
      consume: async (b) => {
        attempts.push(b.records.map((r) => String(r.body)));
        const refused = b.records.filter((r) => r.body === '3.1');
        // Refused twice, then (say, after the backend's limit was raised) accepted.
        if (refused.length > 0 && attempts.length <= 2)
          throw new PartialRefusalError(
            [{ records: refused, error: new RequestTooLargeError('too large') }],
            b.records.length - 1,
          );
      },
    });
    hub.append('0', 10);
    void pump.run();
    await until(() => counters.recordsAccepted === 20);
    await pump.stop(1_000);
    assert.equal(attempts[0]!.length, 20);
    assert.deepEqual(attempts.slice(1), [['3.1'], ['3.1']], 'the delivered records are not sent again');
    assert.equal(counters.exportHolds, 2);
    assert.equal(counters.recordsAccepted, 20);
    assert.equal(store.data.get('0')?.sequenceNumber, 9);
  },
);

test(
  'a whole batch refused with a dead-letter store logs one error line with its sequence range and ' + 'reason',
  async () => {
    const logger = errorLines();
    let n = 0;
    const { hub, pump, counters } = setup({
      logger,
      consume: async () => {
        if (n++ === 0) throw new PermanentError('otlphttp: Unauthorized (code 401)');
      },
      deadLetter: { write: async () => {} },
    });
    hub.append('0', 10);
    void pump.run();
    await until(() => counters.eventsDeadLettered === 10);
    await pump.stop(1_000);
    const lines = logger.errors.filter((l) => /dead-letter/.test(l.message));
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.fields.firstSequenceNumber, 0);
    assert.equal(lines[0]!.fields.lastSequenceNumber, 9);
    assert.equal(lines[0]!.fields.error, 'otlphttp: Unauthorized (code 401)');
    assert.equal(lines[0]!.fields.type, 'permanent');
    assert.equal(typeof lines[0]!.fields.store, 'string');
  },
);

test('a failing dead-letter store holds the partition: nothing is checkpointed past the refused batch', async () => {
  const { hub, store, pump } = setup({
    consume: async () => {
      throw new PermanentError('no');
    },
    deadLetter: {
      write: async () => {
        throw new Error('disk full');
      },
    },
  });
  hub.append('0', 10);
  void pump.run();
  await new Promise((r) => setTimeout(r, 100));
  const end = await pump.kill();
  assert.equal(end.reason, 'stopped');
  assert.equal(store.data.get('0'), undefined);
});

test('a killed pump (ownership lost) abandons its batch and writes no checkpoint', async () => {
  let started = false;
  const { hub, store, pump } = setup({
    consume: (_b, signal) =>
      new Promise((_r, reject) => {
        started = true;
        signal?.addEventListener('abort', () => reject(signal.reason));
      }),
  });
  hub.append('0', 5);
  void pump.run();
  await until(() => started);
  await pump.kill();
  assert.equal(store.writes.length, 0);
});

test('a reader failure reopens right after the last resolved event: nothing lost, nothing repeated', async () => {
  const { hub, exported, pump, statuses } = setup();
  hub.append('0', 10);
  void pump.run();
  await until(() => exported.length === 10);
  hub.failNextReceives.push(new BackendError('connection reset', { retryable: true }));
  hub.append('0', 10);
  await until(() => exported.length === 20);
  await pump.stop(1_000);
  assert.deepEqual(
    exported,
    Array.from({ length: 20 }, (_, i) => i),
  );
  const reopen = hub.opens[1]!.options.startPosition;
  assert.deepEqual(reopen, { kind: 'sequenceNumber', sequenceNumber: 9, inclusive: false });
  assert.ok(statuses.some((s) => s.type === 'backendDisconnected'));
  assert.ok(statuses.some((s) => s.type === 'backendRecovered'));
});

test('ownership lost from the hub ends the pump without reopening', async () => {
  const { hub, pump } = setup();
  hub.failNextReceives.push(new OwnershipLostError('stolen'));
  const end = await pump.run();
  assert.equal(end.reason, 'ownershipLost');
  assert.equal(hub.opens.length, 1);
});

test('a gap in sequence numbers is reported as events lost to retention', async () => {
  const { hub, pump, counters, statuses, exported } = setup();
  hub.append('0', 5);
  void pump.run();
  await until(() => exported.length === 5);
  // Simulate expiry: the next events the reader sees start 7 numbers later.
  const log = hub.logs.get('0')!;
  for (let s = 12; s < 15; s++)
    log.push({ body: Buffer.from('x'), sequenceNumber: s, offset: String(s * 100), enqueuedTime: new Date() });
  await until(() => exported.length === 8);
  await pump.stop(1_000);
  assert.equal(counters.eventsLostToRetention, 7);
  assert.ok(statuses.some((s) => s.type === 'retentionGap' && s.eventsLost === 7));
});

test(
  'a reader that stays silent while the hub holds newer events is reopened after the last processed ' + 'event',
  async () => {
    const { hub, exported, pump, statuses } = setup({ stallTimeoutMs: 100 });
    hub.append('0', 5);
    void pump.run();
    await until(() => exported.length === 5);
    hub.silentReaders.add(hub.opens.length - 1); // the open reader now delivers nothing, as on a dead link
    hub.append('0', 5);
    await until(() => exported.length === 10);
    await pump.stop(1_000);
    assert.deepEqual(
      exported,
      Array.from({ length: 10 }, (_, i) => i),
    );
    assert.deepEqual(hub.opens[1]!.options.startPosition, {
      kind: 'sequenceNumber',
      sequenceNumber: 4,
      inclusive: false,
    });
    assert.ok(statuses.some((s) => s.type === 'backendDisconnected' && /no events for/.test(s.error.message)));
  },
);

test('a quiet partition with nothing new is not reopened', async () => {
  const { hub, exported, pump } = setup({ stallTimeoutMs: 50 });
  hub.append('0', 3);
  void pump.run();
  await until(() => exported.length === 3);
  await new Promise((r) => setTimeout(r, 300));
  await pump.stop(1_000);
  assert.equal(hub.opens.length, 1);
});

test(
  'without a dead-letter store a refused batch is held and retried until accepted: nothing dropped, nothing ' +
    'checkpointed past it',
  async () => {
    let refusals = 0;
    const exported: number[] = [];
    const { hub, store, pump, counters, statuses } = setup({
      // One batch in flight keeps the partition's order through the holds (two: see the test below).
      maxBatchesInFlight: 1,
      consume: async (b) => {
        if (b.records.some((r) => r.attributes.seq === 10) && refusals < 5) {
          refusals++;
          throw refusals % 2 ? new PermanentError('400 bad request') : new Error('503 unavailable');
        }
        for (const r of b.records) exported.push(r.attributes.seq as number);
      },
    });
    hub.append('0', 30);
    void pump.run();
    await until(() => refusals === 5 && exported.length === 30);
    await pump.stop(1_000);
    assert.deepEqual(
      exported,
      Array.from({ length: 30 }, (_, i) => i),
      'every event exported once, in order, after the holds',
    );
    assert.equal(counters.exportHolds, 5);
    assert.equal(counters.recordsRefused, 0);
    assert.equal(counters.eventsDropped, 0);
    assert.equal(store.data.get('0')?.sequenceNumber, 29);
    const states = statuses.flatMap((s) =>
      s.type === 'partitionState' ? [`${s.state}${s.cause ? `/${s.cause}` : ''}`] : [],
    );
    assert.equal(states[0], 'retrying/export', 'the hold is reported');
    assert.equal(states.at(-1), 'reading', 'and its end');
  },
);

test(
  'a batch the pipeline holds past the report delay makes the partition waiting, since the hand-over, until ' +
    'delivered',
  async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const exported: number[] = [];
    const { hub, pump, statuses } = setup({
      deliveryWaitReportMs: 30,
      consume: async (b) => {
        if (b.records.some((r) => r.attributes.seq === 0)) await held;
        for (const r of b.records) exported.push(r.attributes.seq as number);
      },
    });
    hub.append('0', 5);
    const before = Date.now();
    void pump.run();
    await until(() => pump.state.state === 'waiting');
    assert.equal(pump.state.cause, 'export');
    assert.ok(
      pump.state.since >= before && pump.state.since <= before + 25,
      'since the hand-over, not since the report',
    );
    // The pump goes on receiving (maxWaitMs 20) while the batch is held: the state stays until delivery.
    hub.append('0', 5);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(pump.state.state, 'waiting');
    release();
    await until(() => exported.length === 10);
    await until(() => pump.state.state === 'reading');
    await pump.stop(1_000);
    const states = statuses.flatMap((s) => (s.type === 'partitionState' ? [s.state] : []));
    assert.deepEqual(states, ['waiting', 'reading']);
  },
);

test('a held batch is never checkpointed past, even by the final checkpoint of a stop', async () => {
  const { hub, store, pump } = setup({
    consume: async (b) => {
      if (b.records.some((r) => (r.attributes.seq as number) >= 10)) throw new Error('503');
    },
  });
  hub.append('0', 30);
  void pump.run();
  await until(() => pump.state.state === 'retrying');
  const end = await pump.stop(1_000);
  assert.equal(end.reason, 'stopped');
  assert.equal(store.data.get('0')?.sequenceNumber, 9, 'the last accepted event, not the held batch');
});

for (const [name, refusal] of [
  ['a memory limiter refusal', () => new DataRefusedError('data refused due to high memory usage')],
  [
    'retries exhausted on a memory limiter refusal',
    () => new RetriesExhaustedError(3, 1000, new DataRefusedError('refused')),
  ],
] as const) {
  for (const mode of ['dead-letter store', 'dead_letter.drop'] as const) {
    test(
      `${name} is held and retried even with a ${mode}: never dead-lettered, dropped or checkpointed ` + `past`,
      async () => {
        const dead: number[] = [];
        let refusals = 0;
        const exported: number[] = [];
        const { hub, store, pump, counters, statuses } = setup({
          ...(mode === 'dead_letter.drop'
            ? { dropRefused: true }
            : {
                deadLetter: {
                  write: async (entries) => {
                    for (const e of entries) dead.push(e.event.sequenceNumber);
                  },
                },
              }),
          consume: async (b) => {
            if (b.records.some((r) => r.attributes.seq === 10) && refusals < 4) {
              refusals++;
              throw refusal();
            }
            for (const r of b.records) exported.push(r.attributes.seq as number);
          },
        });
        hub.append('0', 30);
        void pump.run();
        await until(() => pump.state.state === 'retrying');
        assert.ok(
          (store.data.get('0')?.sequenceNumber ?? -1) <= 9,
          'not checkpointed past the refused batch while held',
        );
        await until(() => refusals === 4 && exported.length === 30);
        await pump.stop(1_000);
        assert.deepEqual(
          exported.toSorted((a, b) => a - b),
          Array.from({ length: 30 }, (_, i) => i),
          'each once',
        );
        assert.deepEqual(dead, []);
        assert.equal(counters.eventsDropped, 0);
        assert.equal(counters.recordsRefused, 0);
        assert.equal(counters.exportHolds, 4);
        assert.equal(store.data.get('0')?.sequenceNumber, 29);
        const failed = statuses.filter((s) => s.type === 'exportFailed');
        assert.ok(
          failed.length === 4 && failed.every((s) => s.type === 'exportFailed' && !s.permanent),
          'reported as retryable',
        );
      },
    );
  }
}

test('dead_letter.drop: a refused batch is dropped, counted and checkpointed past', async () => {
  const { hub, store, pump, counters } = setup({
    dropRefused: true,
    consume: async (b) => {
      if (b.records.some((r) => r.attributes.seq === 10)) throw new PermanentError('400');
    },
  });
  hub.append('0', 30);
  void pump.run();
  await until(() => counters.eventsDropped === 10);
  await pump.stop(1_000);
  assert.equal(counters.recordsRefused, 10);
  assert.equal(store.data.get('0')?.sequenceNumber, 29);
});

test(
  'a stop during the reopen backoff is graceful: the final checkpoint is written, the end is reported ' + 'once',
  async () => {
    const { hub, store, exported, pump, statuses } = setup({ reopenInitialMs: 60_000 });
    hub.append('0', 25);
    void pump.run();
    await until(() => exported.length === 25);
    hub.failNextReceives.push(new BackendError('link detached', { retryable: true }));
    await until(() => pump.state.state === 'retrying');
    const end = await pump.stop(1_000);
    assert.equal(end.reason, 'stopped');
    assert.equal(store.data.get('0')?.sequenceNumber, 24, 'the final checkpoint covers everything exported');
    const written = statuses.flatMap((s) => (s.type === 'checkpointWritten' ? [s.sequenceNumber] : []));
    assert.equal(written.at(-1), 24);
    assert.ok(written.length <= 2, `the first batch's early checkpoint, then the final one: ${written.join(',')}`);
  },
);

test(
  'the failure count resets only after a receive completed, and a permanent refusal is reported with its ' + 'key',
  async () => {
    const { hub, exported, pump, statuses, counters } = setup();
    hub.append('0', 5);
    const refused = Object.assign(new BackendError("consumer group 'nope' not found", { retryable: false }), {
      permanent: true,
      configKey: 'group',
    });
    hub.failNextReceives.push(refused, refused, refused);
    void pump.run();
    await until(() => exported.length === 5, 30_000);
    await pump.stop(1_000);
    assert.equal(counters.restarts.permanent, 3);
    assert.equal(
      statuses.filter((s) => s.type === 'backendRecovered').length,
      1,
      'recovered once, after the first completed receive',
    );
    const retrying = statuses.find((s) => s.type === 'partitionState' && s.state === 'retrying');
    assert.ok(
      retrying && retrying.type === 'partitionState' && retrying.permanent === true && retrying.configKey === 'group',
    );
  },
);

/**
 * A batch processor that exports only when every producer waits on it (an hour's timeout, a size never
 * reached), and a builder of pumps reading batches of 10 into it.
 */
function waitingBatcher() {
  const sink = new InMemorySignalConsumer();
  const batcher = new BatchProcessor(sink, { timeoutMs: 3_600_000, sendBatchSize: 100_000 });
  const pumpOf = (hub: FakeHub, partitionId: string, overrides: Partial<PartitionPumpOptions> = {}) =>
    new PartitionPump({
      hub,
      partitionId,
      start: { kind: 'earliest' },
      prefetchCount: 10,
      maxBatchSize: 10,
      maxWaitMs: 20,
      decode: rawDecode,
      context: { ...context, partitionId },
      consumer: batcher,
      checkpointer: new Checkpointer({
        store: new RecordingStore(),
        scope,
        partitionId,
        intervalMs: 3_600_000,
        everyNEvents: 0,
      }),
      counters: createPumpCounters(),
      logger: noopLogger,
      emit: () => {},
      reopenInitialMs: 1,
      reopenMaxMs: 5,
      holdInitialMs: 1,
      holdMaxMs: 5,
      ...overrides,
    });
  return { sink, pumpOf };
}

test(
  'pumps whose reads come in pieces smaller than max_poll_events, with the hub still ahead, do not leave a batch ' +
    'processor on its timer, to the last piece',
  async (t) => {
    const hub = new FakeHub();
    hub.maxPerReceive = 3; // the polling backend hands the SDK's batches over: a third of its window
    // Only "every producer waits here" can start an export.
    const { sink, pumpOf } = waitingBatcher();
    const pumps = ['0', '1'].map((partitionId) => {
      hub.append(partitionId, 60);
      return pumpOf(hub, partitionId);
    });
    t.after(() => Promise.all(pumps.map((p) => p.stop(1_000))));
    for (const pump of pumps) void pump.run();
    // Each partition's last piece leaves the hub caught up: the pump stays a producer until that piece was
    // delivered, so it goes out as soon as every producer waits, not on the timer; so does everything before it.
    await until(() => sink.records().length === 2 * 60, 5_000);
    assert.ok(sink.calls > 1, 'exported as the pumps waited, not in one export at the end');
  },
);

test(
  'a pump whose backlog ends on a full batch withdraws at once, not after its next receive waited out ' + 'poll_rate',
  async (t) => {
    const hub = new FakeHub();
    hub.emptyWaitCapMs = Number.POSITIVE_INFINITY; // an empty receive waits out its maxWaitMs, as the backends do
    hub.append('0', 20); // two full batches: the first leaves the hub ahead, the second ends the backlog
    hub.append('1', 30);
    const { sink, pumpOf } = waitingBatcher();
    const full = pumpOf(hub, '0', { maxWaitMs: 60_000 });
    const pieces = pumpOf(hub, '1', { maxWaitMs: 60_000 });
    t.after(() => Promise.all([full.stop(1_000), pieces.stop(1_000)]));
    void full.run();
    await until(() => sink.records().length === 20);
    // Partition 1 comes in pieces with the hub ahead (a producer the batch processor waits for); partition 0
    // sits in a receive of up to a minute. Were it still a producer, partition 1's pieces would wait for it.
    hub.maxPerReceive = 3;
    void pieces.run();
    await until(() => sink.records().length === 50, 5_000);
  },
);

test("a pump waiting out a reader failure's backoff is no producer a batch processor waits for", async (t) => {
  const busy = new FakeHub(); // partition 0: fails on its second receive, with a backlog left
  busy.maxPerReceive = 3;
  busy.append('0', 30);
  const open = busy.openPartition.bind(busy);
  busy.openPartition = async (partitionId, options) => {
    const reader = await open(partitionId, options);
    let receives = 0;
    return {
      ...reader,
      receive: (max, waitMs, signal) =>
        ++receives === 2
          ? Promise.reject(new BackendError('link detached', { retryable: true }))
          : reader.receive(max, waitMs, signal),
    };
  };
  const other = new FakeHub();
  other.maxPerReceive = 3;
  other.append('1', 30);
  const { sink, pumpOf } = waitingBatcher();
  const backoff = { reopenInitialMs: 3_600_000, reopenMaxMs: 3_600_000 };
  const failing = pumpOf(busy, '0', backoff);
  void failing.run();
  await until(() => failing.state.state === 'retrying');
  const reading = pumpOf(other, '1', backoff);
  t.after(() => Promise.all([failing.stop(1_000), reading.stop(1_000)]));
  void reading.run();
  // Partition 0's first piece plus all of partition 1, none of it on the hour's timer.
  await until(() => sink.records().length === 3 + 30, 5_000);
});

test(
  "hasBacklog: the hub's last enqueued event past the last one received, or a full batch when that is " + 'unknown',
  async () => {
    const { hasBacklog } = await import('../../../src/receiver/partition-pump.ts');
    const events = (...seqs: number[]) =>
      seqs.map((sequenceNumber) => ({ sequenceNumber }) as unknown as ReceivedEvent);
    assert.equal(hasBacklog(events(1, 2, 3), 3, undefined), true, "a full batch, the hub's position unknown");
    assert.equal(hasBacklog(events(1, 2, 3), 3, 3), false, 'a full batch, caught up');
    assert.equal(hasBacklog(events(1, 2, 3), 3, 9), true, 'a full batch, the hub ahead');
    assert.equal(
      hasBacklog(events(1, 2, 3), 3, 1),
      true,
      "a full batch, the hub's position older than what was received",
    );
    assert.equal(hasBacklog(events(1, 2), 3, 9), true, 'a piece, the hub ahead');
    assert.equal(hasBacklog(events(1, 2), 3, 2), false, 'a piece, caught up');
    assert.equal(hasBacklog(events(1, 2), 3, undefined), false, "a piece, the hub's position unknown");
    assert.equal(hasBacklog([], 3, 9), false, 'nothing received');
  },
);
