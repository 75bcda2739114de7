import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { PartitionPump } from '../../../src/receiver/partition-pump.ts';
import { Checkpointer } from '../../../src/receiver/checkpointer.ts';
import { createPumpCounters } from '../../../src/receiver/internal/pump-counters.ts';
import { noopLogger } from '../../../src/component/logger.ts';
import { DataRefusedError, PermanentError } from '../../../src/component/errors.ts';
import { RetriesExhaustedError } from '../../../src/pipeline/retry.ts';
import { BackendError, OwnershipLostError } from '../../../src/backends/consumer.ts';
import type { DeadLetterStore } from '../../../src/pipeline/dead-letter.ts';
import type { Decoder } from '../../../src/decode/decoder.ts';
import type { LogBatch } from '../../../src/pipeline/log-batch.ts';
import type { ReceiverStatus } from '../../../src/receiver/receiver-status.ts';
import { FakeHub, RecordingStore } from './fakes.ts';

const resource = resourceFromAttributes({});
const rawDecode: Decoder = (events) => ({
  records: events.map((e) => ({ hrTime: [0, 0], hrTimeObserved: [0, 0], body: Buffer.from(e.body).toString(), attributes: { seq: e.sequenceNumber }, resource, instrumentationScope: { name: 't' }, droppedAttributesCount: 0 }) as ReadableLogRecord),
  stats: { failedEvents: 0, sanitizedEvents: 0, timestampFallbacks: 0 },
});
const scope = { fullyQualifiedNamespace: 'fake', eventHubName: 'hub', consumerGroup: '$Default' };
const context = { namespace: 'fake', eventHubName: 'hub', consumerGroup: '$Default', partitionId: '0' };

function setup(opts: { consume?: (b: LogBatch, s?: AbortSignal) => Promise<void>; deadLetter?: DeadLetterStore; dropRefused?: boolean; intervalMs?: number; everyN?: number; stallTimeoutMs?: number; reopenInitialMs?: number } = {}) {
  const hub = new FakeHub();
  const store = new RecordingStore();
  const exported: number[] = [];
  const statuses: ReceiverStatus[] = [];
  const counters = createPumpCounters();
  const checkpointer = new Checkpointer({ store, scope, partitionId: '0', intervalMs: opts.intervalMs ?? 60_000, everyNEvents: opts.everyN ?? 0 });
  const pump = new PartitionPump({
    hub, partitionId: '0', start: { kind: 'earliest' }, prefetchCount: 10, maxBatchSize: 10, maxWaitMs: 20, decode: rawDecode, context,
    consumer: { consume: opts.consume ?? (async (b) => { for (const r of b.records) exported.push(r.attributes.seq as number); }) },
    checkpointer, deadLetter: opts.deadLetter, dropRefused: opts.dropRefused, counters, logger: noopLogger, emit: (s) => statuses.push(s),
    reopenInitialMs: opts.reopenInitialMs ?? 1, reopenMaxMs: opts.reopenInitialMs ?? 5, stallTimeoutMs: opts.stallTimeoutMs, holdInitialMs: 1, holdMaxMs: 5,
  });
  return { hub, store, exported, statuses, counters, pump };
}

async function until(cond: () => boolean, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('exports every event once, in order, and writes the final checkpoint on a graceful stop', async () => {
  const { hub, store, exported, pump, counters } = setup();
  hub.append('0', 95);
  void pump.run();
  await until(() => exported.length === 95);
  const end = await pump.stop(1_000);
  assert.equal(end.reason, 'stopped');
  assert.deepEqual(exported, Array.from({ length: 95 }, (_, i) => i));
  assert.equal(store.data.get('0')?.sequenceNumber, 94);
  assert.equal(store.data.get('0')?.offset, '9400');
  assert.equal(counters.recordsAccepted, 95);
});

test('checkpoints every N events when asked, never past an unresolved batch', async () => {
  let release!: () => void;
  let calls = 0;
  const gate = new Promise<void>((r) => (release = r));
  const { hub, store, pump } = setup({ everyN: 10, consume: async () => { calls++; if (calls === 3) await gate; } });
  hub.append('0', 40);
  void pump.run();
  await until(() => calls === 3);
  await new Promise((r) => setTimeout(r, 30));
  // Batches 1 and 2 resolved (seq 0..19); batch 3 is held by the consumer: the checkpoint must not pass 19.
  assert.equal(store.data.get('0')?.sequenceNumber, 19);
  release();
  await until(() => store.data.get('0')?.sequenceNumber === 39);
  await pump.stop(1_000);
});

test('a permanently refused batch goes to the dead-letter store, is counted, and only then checkpointed past', async () => {
  const dead: number[] = [];
  let n = 0;
  const { hub, store, pump, counters, statuses } = setup({
    consume: async () => { if (n++ === 1) throw new PermanentError('schema rejected'); },
    deadLetter: { write: async (entries) => { for (const e of entries) dead.push(e.event.sequenceNumber); } },
  });
  hub.append('0', 30);
  void pump.run();
  await until(() => counters.recordsAccepted === 20);
  await pump.stop(1_000);
  assert.deepEqual(dead, Array.from({ length: 10 }, (_, i) => 10 + i));
  assert.equal(counters.eventsDeadLettered, 10);
  assert.equal(counters.recordsRefused, 10);
  assert.equal(store.data.get('0')?.sequenceNumber, 29);
  assert.ok(statuses.some((s) => s.type === 'deadLettered'));
});

test('a failing dead-letter store holds the partition: nothing is checkpointed past the refused batch', async () => {
  const { hub, store, pump } = setup({
    consume: async () => { throw new PermanentError('no'); },
    deadLetter: { write: async () => { throw new Error('disk full'); } },
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
  const { hub, store, pump } = setup({ consume: (_b, signal) => new Promise((_r, reject) => { started = true; signal?.addEventListener('abort', () => reject(signal.reason)); }) });
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
  assert.deepEqual(exported, Array.from({ length: 20 }, (_, i) => i));
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
  for (let s = 12; s < 15; s++) log.push({ body: Buffer.from('x'), sequenceNumber: s, offset: String(s * 100), enqueuedTime: new Date() });
  await until(() => exported.length === 8);
  await pump.stop(1_000);
  assert.equal(counters.eventsLostToRetention, 7);
  assert.ok(statuses.some((s) => s.type === 'retentionGap' && s.eventsLost === 7));
});

test('a reader that stays silent while the hub holds newer events is reopened after the last processed event', async () => {
  const { hub, exported, pump, statuses } = setup({ stallTimeoutMs: 100 });
  hub.append('0', 5);
  void pump.run();
  await until(() => exported.length === 5);
  hub.silentReaders.add(hub.opens.length - 1); // the open reader now delivers nothing, as on a dead link
  hub.append('0', 5);
  await until(() => exported.length === 10);
  await pump.stop(1_000);
  assert.deepEqual(exported, Array.from({ length: 10 }, (_, i) => i));
  assert.deepEqual(hub.opens[1]!.options.startPosition, { kind: 'sequenceNumber', sequenceNumber: 4, inclusive: false });
  assert.ok(statuses.some((s) => s.type === 'backendDisconnected' && /no events for/.test(s.error.message)));
});

test('a quiet partition with nothing new is not reopened', async () => {
  const { hub, exported, pump } = setup({ stallTimeoutMs: 50 });
  hub.append('0', 3);
  void pump.run();
  await until(() => exported.length === 3);
  await new Promise((r) => setTimeout(r, 300));
  await pump.stop(1_000);
  assert.equal(hub.opens.length, 1);
});

test('without a dead-letter store a refused batch is held and retried until accepted: nothing dropped, nothing checkpointed past it', async () => {
  let refusals = 0;
  const exported: number[] = [];
  const { hub, store, pump, counters, statuses } = setup({
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
  assert.deepEqual(exported, Array.from({ length: 30 }, (_, i) => i), 'every event exported once, in order, after the holds');
  assert.equal(counters.exportHolds, 5);
  assert.equal(counters.recordsRefused, 0);
  assert.equal(counters.eventsDropped, 0);
  assert.equal(store.data.get('0')?.sequenceNumber, 29);
  const states = statuses.flatMap((s) => (s.type === 'partitionState' ? [`${s.state}${s.cause ? `/${s.cause}` : ''}`] : []));
  assert.equal(states[0], 'retrying/export', 'the hold is reported');
  assert.equal(states.at(-1), 'reading', 'and its end');
});

test('a held batch is never checkpointed past, even by the final checkpoint of a stop', async () => {
  const { hub, store, pump } = setup({ consume: async (b) => { if (b.records.some((r) => (r.attributes.seq as number) >= 10)) throw new Error('503'); } });
  hub.append('0', 30);
  void pump.run();
  await until(() => pump.state.state === 'retrying');
  const end = await pump.stop(1_000);
  assert.equal(end.reason, 'stopped');
  assert.equal(store.data.get('0')?.sequenceNumber, 9, 'the last accepted event, not the held batch');
});

for (const [name, refusal] of [
  ['a memory limiter refusal', () => new DataRefusedError('data refused due to high memory usage')],
  ['retries exhausted on a memory limiter refusal', () => new RetriesExhaustedError(3, 1000, new DataRefusedError('refused'))],
] as const) {
  for (const mode of ['dead-letter store', 'dead_letter.drop'] as const) {
    test(`${name} is held and retried even with a ${mode}: never dead-lettered, dropped or checkpointed past`, async () => {
      const dead: number[] = [];
      let refusals = 0;
      const exported: number[] = [];
      const { hub, store, pump, counters, statuses } = setup({
        ...(mode === 'dead_letter.drop'
          ? { dropRefused: true }
          : { deadLetter: { write: async (entries) => { for (const e of entries) dead.push(e.event.sequenceNumber); } } }),
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
      assert.ok((store.data.get('0')?.sequenceNumber ?? -1) <= 9, 'not checkpointed past the refused batch while held');
      await until(() => refusals === 4 && exported.length === 30);
      await pump.stop(1_000);
      assert.deepEqual(exported, Array.from({ length: 30 }, (_, i) => i));
      assert.deepEqual(dead, []);
      assert.equal(counters.eventsDropped, 0);
      assert.equal(counters.recordsRefused, 0);
      assert.equal(counters.exportHolds, 4);
      assert.equal(store.data.get('0')?.sequenceNumber, 29);
      const failed = statuses.filter((s) => s.type === 'exportFailed');
      assert.ok(failed.length === 4 && failed.every((s) => s.type === 'exportFailed' && !s.permanent), 'reported as retryable');
    });
  }
}

test('dead_letter.drop: a refused batch is dropped, counted and checkpointed past', async () => {
  const { hub, store, pump, counters } = setup({ dropRefused: true, consume: async (b) => { if (b.records.some((r) => r.attributes.seq === 10)) throw new PermanentError('400'); } });
  hub.append('0', 30);
  void pump.run();
  await until(() => counters.eventsDropped === 10);
  await pump.stop(1_000);
  assert.equal(counters.recordsRefused, 10);
  assert.equal(store.data.get('0')?.sequenceNumber, 29);
});

test('a stop during the reopen backoff is graceful: the final checkpoint is written, the end is reported once', async () => {
  const { hub, store, exported, pump, statuses } = setup({ reopenInitialMs: 60_000 });
  hub.append('0', 25);
  void pump.run();
  await until(() => exported.length === 25);
  hub.failNextReceives.push(new BackendError('link detached', { retryable: true }));
  await until(() => pump.state.state === 'retrying');
  const end = await pump.stop(1_000);
  assert.equal(end.reason, 'stopped');
  assert.equal(store.data.get('0')?.sequenceNumber, 24, 'the final checkpoint covers everything exported');
  assert.equal(statuses.filter((s) => s.type === 'checkpointWritten').length, 1);
});

test('the failure count resets only after a receive completed, and a permanent refusal is reported with its key', async () => {
  const { hub, exported, pump, statuses, counters } = setup();
  hub.append('0', 5);
  const refused = Object.assign(new BackendError("consumer group 'nope' not found", { retryable: false }), { permanent: true, configKey: 'group' });
  hub.failNextReceives.push(refused, refused, refused);
  void pump.run();
  await until(() => exported.length === 5, 30_000);
  await pump.stop(1_000);
  assert.equal(counters.restarts.permanent, 3);
  assert.equal(statuses.filter((s) => s.type === 'backendRecovered').length, 1, 'recovered once, after the first completed receive');
  const retrying = statuses.find((s) => s.type === 'partitionState' && s.state === 'retrying');
  assert.ok(retrying && retrying.type === 'partitionState' && retrying.permanent === true && retrying.configKey === 'group');
});
