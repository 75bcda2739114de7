import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { Decoder } from '../../../src/decode/decoder.ts';
import type { HubClient, OpenOptions, PartitionReader, ReceivedEvent } from '../../../src/backends/consumer.ts';
import type {
  Checkpoint,
  CheckpointScope,
  CheckpointStore,
  CheckpointWriteOptions,
  OwnershipFence,
} from '../../../src/ownership/checkpoint.ts';
import { CheckpointFencedError, keepsStored } from '../../../src/ownership/checkpoint.ts';
import { waitUntil } from '../../helpers/wait-until.ts';

/** A scripted in-memory partition log behind the HubClient interface, for unit tests of pump logic only. */
export class FakeHub implements HubClient {
  readonly kind = 'polling' as const;
  readonly fullyQualifiedNamespace = 'fake.servicebus.windows.net';
  readonly eventHubName = 'hub';
  readonly consumerGroup = '$Default';
  readonly logs = new Map<string, ReceivedEvent[]>();
  readonly opens: { partitionId: string; options: OpenOptions }[] = [];
  /** Errors thrown by the next receive calls, in order. */
  readonly failNextReceives: Error[] = [];
  /** Indexes (into `opens`) of readers that deliver nothing, as a client stuck on a dead link. */
  readonly silentReaders = new Set<number>();
  /** Most events one receive returns whatever it is asked for (a backend handing over smaller pieces). */
  maxPerReceive = Number.POSITIVE_INFINITY;
  /** Longest an empty receive waits, whatever it is asked for (short by default: tests poll quickly). */
  emptyWaitCapMs = 20;

  append(partitionId: string, count: number): void {
    const log = this.logs.get(partitionId) ?? [];
    for (let i = 0; i < count; i++) {
      const seq = log.length;
      log.push({
        body: Buffer.from(`event-${partitionId}-${seq}`),
        sequenceNumber: seq,
        offset: String(seq * 100),
        enqueuedTime: new Date(1_700_000_000_000 + seq),
      });
    }
    this.logs.set(partitionId, log);
  }

  async getHubProperties() {
    return { name: this.eventHubName, partitionIds: [...this.logs.keys()] };
  }

  async getPartitionProperties(partitionId: string) {
    const log = this.logs.get(partitionId) ?? [];
    const last = log[log.length - 1];
    return {
      hubName: this.eventHubName,
      partitionId,
      beginningSequenceNumber: log.length ? 0 : -1,
      lastEnqueuedSequenceNumber: last?.sequenceNumber ?? -1,
      lastEnqueuedOffset: last?.offset ?? '-1',
      lastEnqueuedOnUtc: last?.enqueuedTime ?? new Date(0),
      isEmpty: !last,
    };
  }

  async openPartition(partitionId: string, options: OpenOptions): Promise<PartitionReader> {
    const index = this.opens.push({ partitionId, options }) - 1;
    const silentReaders = this.silentReaders;
    const log = this.logs.get(partitionId) ?? [];
    const p = options.startPosition;
    let next =
      p.kind === 'earliest'
        ? 0
        : p.kind === 'latest'
          ? log.length
          : p.kind === 'sequenceNumber'
            ? p.sequenceNumber + (p.inclusive ? 0 : 1)
            : 0;
    const logs = this.logs;
    const failNextReceives = this.failNextReceives;
    const maxPerReceive = (): number => this.maxPerReceive;
    const emptyWaitCapMs = (): number => this.emptyWaitCapMs;
    return {
      partitionId,
      async receive(max, waitMs, signal) {
        if (signal.aborted) throw signal.reason;
        const failure = failNextReceives.shift();
        if (failure) throw failure;
        const current = logs.get(partitionId) ?? [];
        if (next >= current.length || silentReaders.has(index)) {
          await new Promise<void>((resolve, reject) => {
            const t = setTimeout(resolve, Math.min(waitMs, emptyWaitCapMs()));
            signal.addEventListener(
              'abort',
              () => {
                clearTimeout(t);
                reject(signal.reason);
              },
              { once: true },
            );
          });
          return [];
        }
        const batch = current.slice(next, next + Math.min(max, maxPerReceive()));
        next += batch.length;
        return batch;
      },
      lastEnqueued() {
        const current = logs.get(partitionId) ?? [];
        const last = current[current.length - 1];
        return last
          ? {
              sequenceNumber: last.sequenceNumber,
              offset: last.offset,
              enqueuedOn: last.enqueuedTime,
              retrievedOn: new Date(),
            }
          : undefined;
      },
      async close() {},
    };
  }

  async close() {}
}

/** A checkpoint store in memory that records every write, for assertions. */
export class RecordingStore implements CheckpointStore {
  readonly data = new Map<string, Checkpoint>();
  readonly writes: Checkpoint[] = [];
  failWrites = 0;
  async read(_scope: CheckpointScope, partitionId: string) {
    return this.data.get(partitionId);
  }
  async list() {
    return [...this.data.values()];
  }
  async write(
    _scope: CheckpointScope,
    checkpoint: Checkpoint,
    fence?: OwnershipFence,
    options?: CheckpointWriteOptions,
  ) {
    if (fence && !fence.isValid()) throw new CheckpointFencedError('lease lapsed');
    if (this.failWrites > 0) {
      this.failWrites--;
      throw new Error('storage unavailable');
    }
    const current = this.data.get(checkpoint.partitionId);
    if (keepsStored(current?.sequenceNumber, checkpoint.sequenceNumber, options)) return;
    this.data.set(checkpoint.partitionId, checkpoint);
    this.writes.push(checkpoint);
  }
}

const emptyResource = resourceFromAttributes({});

/** A decoder that makes one record per event, its sequence number in the attribute `seq`. */
export const sequenceNumberDecoder: Decoder = (events) => ({
  records: events.map(
    (e) =>
      ({
        hrTime: [0, 0],
        hrTimeObserved: [0, 0],
        body: 'x',
        attributes: { seq: e.sequenceNumber },
        resource: emptyResource,
        instrumentationScope: { name: 't' },
        droppedAttributesCount: 0,
      }) as ReadableLogRecord,
  ),
  stats: { failedEvents: 0, sanitizedEvents: 0, timestampFallbacks: 0 },
});

/** Waits (polling every 5 ms) until `cond` holds; throws after `timeoutMs`. */
export async function until(cond: () => boolean, timeoutMs = 5_000) {
  await waitUntil(cond, timeoutMs, 'condition', 5);
}
