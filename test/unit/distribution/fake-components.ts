/**
 * Small stand-ins for the service tests: exporter factories named like the real `debug` and `file`
 * (recording what they receive), and a fake receiver factory whose receivers are driven by the test.
 */
import { z } from 'zod';
import type { ExporterFactory, ReceiverFactory, CreateSettings } from '../../../src/pipeline/factory.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import type { AzureEventHubReceiver, ReceiverCreateSettings } from '../../../src/receiver/receiver.ts';
import type {
  HubPartitionLag,
  ReceiverCounters,
  ReceiverStats,
  ReceiverStatus,
  PartitionStats,
} from '../../../src/receiver/receiver-status.ts';
import { azureEventHubReceiverFactory } from '../../../src/receiver/factory.ts';
import {
  distributionExtensions,
  distributionProcessors,
  type Components,
} from '../../../src/distribution/components.ts';
import type { MemoryGuardStats } from '../../../src/receiver/memory-guard.ts';

export interface RecordingExporter extends SignalConsumer {
  readonly id: string;
  readonly batches: SignalBatch[];
  readonly events: string[];
  /** Producers attached (`attachProducer`) and not yet detached. */
  producers: number;
}

/** Every exporter created, by id, in creation order; `events` logs consume/flush/shutdown calls globally. */
export function recordingExporterFactory(
  type: string,
  journal: string[],
  created: Map<string, RecordingExporter>,
): ExporterFactory<{ path?: string; verbosity?: string }> {
  return {
    type,
    stability: 'development',
    signals: ['logs', 'metrics', 'traces'],
    configSchema: z.strictObject({ path: z.string().optional(), verbosity: z.string().optional() }) as z.ZodType<{
      path?: string;
      verbosity?: string;
    }>,
    createDefaultConfig: () => ({}),
    async create(settings: CreateSettings) {
      const exporter: RecordingExporter = {
        id: settings.id,
        batches: [],
        events: [],
        producers: 0,
        attachProducer() {
          exporter.producers++;
          let attached = true;
          return () => {
            if (attached) exporter.producers--;
            attached = false;
          };
        },
        async consume(batch) {
          exporter.batches.push(batch);
          journal.push(`consume ${settings.id}`);
        },
        async forceFlush() {
          journal.push(`flush ${settings.id}`);
        },
        async shutdown() {
          journal.push(`shutdown ${settings.id}`);
        },
      };
      created.set(settings.id, exporter);
      return exporter;
    },
  };
}

const ZERO_COUNTERS: ReceiverCounters = {
  eventsReceived: 0,
  bytesReceived: 0,
  recordsDecoded: 0,
  eventsFailedDecode: 0,
  recordsAccepted: 0,
  recordsRefused: 0,
  metricPointsDecoded: 0,
  metricPointsAccepted: 0,
  metricPointsRefused: 0,
  spansDecoded: 0,
  spansAccepted: 0,
  spansRefused: 0,
  itemsWithoutPipeline: 0,
  eventsDeadLettered: 0,
  checkpointWrites: 0,
  checkpointFailures: 0,
  backendReconnects: 0,
  eventsLostToRetention: 0,
  eventsBackfilled: 0,
  eventsMissingFromCapture: 0,
  eventsDropped: 0,
  exportHolds: 0,
  invalidCheckpoints: 0,
  eventsDecodedOffThread: 0,
  eventsDecodeFallbacks: 0,
  claimPauses: 0,
};

/** A receiver driven by the test: emit statuses, set stats, push batches into the pipeline. */
export class FakeReceiver implements AzureEventHubReceiver {
  counters: ReceiverCounters = { ...ZERO_COUNTERS };
  /** `memory.limit_mib` state, when a test sets one. */
  memory: MemoryGuardStats | undefined;
  /** Lease ownership's claim pause, when a test sets one. */
  claimsPaused: boolean | undefined;
  partitions: PartitionStats[] = [];
  restarts: ReceiverStats['restarts'] = {
    transient: 0,
    permanent: 0,
    stalled: 0,
    ownershipLost: 0,
    fenced: 0,
    error: 0,
    startFailed: 0,
  };
  released: { partitionId: string; reason: string; seconds: number }[] = [];
  owned: string[] = [];
  /** Hub-wide lag to report; undefined: the receiver has no `hubLag` (as before the monitor existed). */
  hubLag: (() => readonly HubPartitionLag[]) | undefined = undefined;
  readonly listeners = new Set<(s: ReceiverStatus) => void>();
  readonly next: SignalConsumer;
  readonly journal: string[];
  readonly id: string;
  /** What the service passed to the factory (resolveAuth, feature gates, logger). */
  settings: ReceiverCreateSettings | undefined;
  constructor(id: string, next: SignalConsumer, journal: string[]) {
    this.id = id;
    this.next = next;
    this.journal = journal;
  }
  async start() {
    this.journal.push(`start ${this.id}`);
  }
  async shutdown() {
    this.journal.push(`shutdown ${this.id}`);
  }
  stats(): ReceiverStats {
    return {
      counters: this.counters,
      partitions: this.partitions,
      restarts: this.restarts,
      released: this.released,
      ...(this.memory ? { memory: this.memory } : {}),
      ...(this.claimsPaused !== undefined ? { claimsPaused: this.claimsPaused } : {}),
    };
  }
  ownedPartitions() {
    return this.owned;
  }
  onStatus(listener: (s: ReceiverStatus) => void) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(status: ReceiverStatus) {
    for (const l of this.listeners) l(status);
  }
}

/**
 * A receiver factory with the real receiver's type, aliases and config schema (so configs validate as in
 * production) whose `create` returns a FakeReceiver.
 */
export function fakeReceiverFactory(
  journal: string[],
  created: Map<string, FakeReceiver>,
): ReceiverFactory<unknown, FakeReceiver, ReceiverCreateSettings> {
  return {
    type: azureEventHubReceiverFactory.type,
    aliases: azureEventHubReceiverFactory.aliases,
    stability: azureEventHubReceiverFactory.stability,
    signals: azureEventHubReceiverFactory.signals,
    configSchema: azureEventHubReceiverFactory.configSchema as z.ZodType<unknown>,
    createDefaultConfig: () => azureEventHubReceiverFactory.createDefaultConfig(),
    configWarnings: azureEventHubReceiverFactory.configWarnings as (config: unknown) => readonly string[],
    async create(settings, _config, next) {
      const r = new FakeReceiver(settings.id, next, journal);
      r.settings = settings;
      created.set(settings.id, r);
      return r;
    },
  };
}

export interface TestComponents {
  readonly components: Components;
  readonly journal: string[];
  readonly exporters: Map<string, RecordingExporter>;
  readonly receivers: Map<string, FakeReceiver>;
}

export function testComponents(): TestComponents {
  const journal: string[] = [];
  const exporters = new Map<string, RecordingExporter>();
  const receivers = new Map<string, FakeReceiver>();
  return {
    journal,
    exporters,
    receivers,
    components: {
      receivers: [fakeReceiverFactory(journal, receivers)],
      exporters: [
        recordingExporterFactory('debug', journal, exporters),
        recordingExporterFactory('file', journal, exporters),
      ],
      processors: distributionProcessors,
      extensions: distributionExtensions,
    },
  };
}
