import type { TokenCredential } from '@azure/core-auth';
import type { ReceiverComponent } from '../pipeline/factory.ts';
import { createFeatureGates, type FeatureGateRegistry } from '../component/feature-gates.ts';
import type { Logger } from '../component/logger.ts';
import { redactError } from '../component/redact.ts';
import type { SignalConsumer } from '../pipeline/consumer.ts';
import { fanOut } from '../pipeline/fan-out.ts';
import type { ExportAttempt } from '../pipeline/retry.ts';
import { routeSignals, type SignalHead } from '../pipeline/signal-router.ts';
import type { AzureEventHubReceiver, ReceiverCreateSettings } from '../receiver/receiver.ts';
import { createJsonLogger } from '../telemetry/json-logger.ts';
import { startMetricsEndpoint, type MetricsEndpoint } from '../telemetry/metrics-endpoint.ts';
import { ReceiverMetrics } from '../telemetry/receiver-metrics.ts';
import { ExporterMetrics } from '../telemetry/exporter-metrics.ts';
import { registerProcessMetrics } from '../telemetry/process-metrics.ts';
import { packageVersion } from '../component/package-version.ts';
import type { Extension, ServiceInfo } from '../extensions/extension-factory.ts';
import type { ResolvedConfig } from './resolve-config.ts';

export interface ServiceOptions {
  /** Where log lines go. Default: a JSON logger on stderr with service.telemetry.logs settings. */
  readonly logger?: Logger;
  /** Gates in force. Default: OTELCOL_FEATURE_GATES applied to the project's gates. */
  readonly featureGates?: FeatureGateRegistry;
}

type StatusReceiver = Pick<AzureEventHubReceiver, 'stats' | 'ownedPartitions' | 'onStatus'>;

function hasStats(r: ReceiverComponent): r is ReceiverComponent & StatusReceiver {
  const c = r as Partial<StatusReceiver>;
  return typeof c.stats === 'function' && typeof c.ownedPartitions === 'function' && typeof c.onStatus === 'function';
}

/** Keeps a shared stage (exporters used by several pipelines) alive when one pipeline's processor shuts down. */
function shielded(consumer: SignalConsumer): SignalConsumer {
  return {
    consume: (batch, signal) => consumer.consume(batch, signal),
    forceFlush: () => consumer.forceFlush?.() ?? Promise.resolve(),
    shutdown: () => consumer.forceFlush?.() ?? Promise.resolve(),
    attachProducer: consumer.attachProducer ? () => consumer.attachProducer!() : undefined,
    acceptsEncodedLogs: consumer.acceptsEncodedLogs === true,
  };
}

/**
 * The running collector: extensions, then each pipeline built back to front (exporters, created once
 * and shared; processors, one chain per pipeline; receivers, created once whatever pipelines list them,
 * each batch split by signal and handed to the pipelines of each signal: see signal-router.ts), then the
 * receivers started. `shutdown` reverses it: receivers stop first
 * (no new claims, in-flight batches finished, final checkpoints written, leases released), then
 * processors flush into exporters, exporters flush and close, extensions and self-telemetry stop last.
 */
export class Service {
  readonly logger: Logger;
  readonly #config: ResolvedConfig;
  readonly #gates: FeatureGateRegistry;
  readonly #extensions = new Map<string, Extension>();
  readonly #exporters = new Map<string, SignalConsumer>();
  readonly #processors: SignalConsumer[] = [];
  readonly #receivers = new Map<string, ReceiverComponent>();
  readonly #unwatch: (() => void)[] = [];
  #metrics: MetricsEndpoint | undefined;
  #stopProcessMetrics: (() => void) | undefined;
  #started = false;
  #stopping: Promise<void> | undefined;

  private constructor(config: ResolvedConfig, options: ServiceOptions) {
    this.#config = config;
    const logs = config.service.telemetry.logs;
    this.logger = options.logger ?? createJsonLogger({ level: logs.level, encoding: logs.encoding });
    this.#gates = options.featureGates ?? createFeatureGates();
  }

  /** Builds and starts everything; on a failure half-way, stops what started and rethrows. */
  static async start(config: ResolvedConfig, options: ServiceOptions = {}): Promise<Service> {
    const service = new Service(config, options);
    try {
      await service.#build();
      await service.#start();
    } catch (error) {
      await service.shutdown().catch(() => {});
      throw error;
    }
    return service;
  }

  /** The Prometheus endpoint's bound address, when metrics are on. */
  metricsAddress(): { host: string; port: number } | undefined {
    return this.#metrics ? { host: this.#metrics.host, port: this.#metrics.port } : undefined;
  }

  extension(id: string): Extension | undefined {
    return this.#extensions.get(id);
  }

  receiver(id: string): ReceiverComponent | undefined {
    return this.#receivers.get(id);
  }

  async #build(): Promise<void> {
    const cfg = this.#config;
    const startedAt = Date.now();
    for (const warning of cfg.warnings) this.logger.warn(warning);
    const metricsCfg = cfg.service.telemetry.metrics;
    let receiverMetrics: ReceiverMetrics | undefined;
    let exporterMetrics: ExporterMetrics | undefined;
    if (metricsCfg.level !== 'none') {
      this.#metrics = await startMetricsEndpoint({
        address: metricsCfg.address,
        serviceVersion: await packageVersion(),
      });
      receiverMetrics = new ReceiverMetrics(this.#metrics.meter);
      exporterMetrics = new ExporterMetrics(this.#metrics.meter);
      this.#stopProcessMetrics = registerProcessMetrics(this.#metrics.meter);
      this.logger.info('self-metrics endpoint listening', {
        endpoint: `${this.#metrics.host}:${this.#metrics.port}`,
        path: '/metrics',
      });
    }

    for (const id of cfg.service.extensions) {
      const ext = cfg.extensions.get(id)!;
      this.#extensions.set(
        id,
        await ext.factory.create({ id, logger: this.logger.child({ component: `extensions/${id}` }) }, ext.config),
      );
    }

    const heads = new Map<string, SignalHead[]>();
    for (const pipeline of cfg.service.pipelines) {
      const exporters: SignalConsumer[] = [];
      for (const id of pipeline.exporters) {
        let exporter = this.#exporters.get(id);
        if (!exporter) {
          const e = cfg.exporters.get(id)!;
          const onExportAttempt = (attempt: ExportAttempt): void => {
            exporterMetrics?.attempt(id, attempt);
            for (const ext of this.#extensions.values()) ext.onExportAttempt?.(id, attempt);
          };
          const settings = { id, logger: this.logger.child({ component: `exporters/${id}` }), onExportAttempt };
          exporter = await e.factory.create(settings, e.config);
          // Counted for every signal of the pipelines that list it, so that their series exist from the start.
          const signals = [
            ...new Set(cfg.service.pipelines.filter((p) => p.exporters.includes(id)).map((p) => p.signal)),
          ];
          if (exporterMetrics) exporter = exporterMetrics.wrap(id, exporter, signals);
          this.#exporters.set(id, exporter);
        }
        exporters.push(exporter);
      }
      let next: SignalConsumer = shielded(fanOut(exporters));
      for (const id of [...pipeline.processors].reverse()) {
        const p = cfg.processors.get(id)!;
        next = await p.factory.create(
          { id, logger: this.logger.child({ component: `processors/${id}`, pipeline: pipeline.id }) },
          p.config,
          next,
        );
        this.#processors.unshift(next);
      }
      const head: SignalHead = { signal: pipeline.signal, consumer: next };
      for (const id of pipeline.receivers) heads.set(id, [...(heads.get(id) ?? []), head]);
    }

    for (const [id, receiverHeads] of heads) {
      const r = cfg.receivers.get(id)!;
      // One instance per receiver id, whatever signals it feeds: its partitions are read once.
      const router = routeSignals(receiverHeads);
      const settings: ReceiverCreateSettings = {
        id,
        signals: router.signals,
        logger: this.logger.child({ component: `receivers/${id}` }),
        featureGates: this.#gates,
        resolveAuth: (extensionId: string): TokenCredential | undefined =>
          this.#extensions.get(extensionId)?.credential?.(),
      };
      const receiver = await r.factory.create(settings, r.config, router);
      this.#receivers.set(id, receiver);
      if (hasStats(receiver)) {
        if (receiverMetrics) this.#unwatch.push(receiverMetrics.add(id, receiver));
        this.#unwatch.push(this.#logStatus(id, receiver));
      }
      for (const ext of this.#extensions.values()) ext.onReceiverCreated?.(id, receiver);
    }
    const info = this.#serviceInfo(startedAt);
    for (const ext of this.#extensions.values()) ext.onServiceBuilt?.(info);
  }

  #serviceInfo(startedAt: number): ServiceInfo {
    const cfg = this.#config;
    const kinds = ['receivers', 'processors', 'exporters', 'extensions'] as const;
    return {
      startedAt,
      pipelines: cfg.service.pipelines,
      components: kinds.flatMap((kind) =>
        [...cfg[kind].values()].map((c) => ({ kind, id: c.id, type: c.factory.type, stability: c.factory.stability })),
      ),
      receiverConfigs: new Map([...cfg.receivers].map(([id, r]) => [id, r.config])),
      featureGates: this.#gates.list(),
      metricsAddress: this.metricsAddress(),
      serviceInstanceId: this.#metrics?.serviceInstanceId,
    };
  }

  async #start(): Promise<void> {
    for (const ext of this.#extensions.values()) await ext.start();
    this.#started = true;
    for (const [id, receiver] of this.#receivers) {
      await receiver.start();
      this.logger.info('receiver started', { receiver: id });
    }
    this.logger.info('everything is ready; receiving', {
      pipelines: this.#config.service.pipelines.map((p) => p.id).join(','),
    });
  }

  /** Logs the status events an operator acts on; the receiver logs its own details. */
  #logStatus(id: string, receiver: StatusReceiver): () => void {
    const log = this.logger.child({ receiver: id });
    return receiver.onStatus((s) => {
      if (s.type === 'hubReached') log.info('hub reached', { partitions: s.partitionIds.length });
      else if (s.type === 'partitionOpened') log.info('partition owned', { partition: s.partitionId });
      else if (s.type === 'partitionClosed')
        log.info('partition released', { partition: s.partitionId, reason: s.reason });
      else if (s.type === 'standby') log.info('standby: every partition is owned by other instances');
    });
  }

  /** Graceful stop (see the class comment). Idempotent; errors are logged, not thrown, so every stage runs. */
  shutdown(): Promise<void> {
    this.#stopping ??= (async () => {
      const step = async (what: string, run: () => Promise<unknown> | undefined) => {
        try {
          await run();
        } catch (error) {
          this.logger.error(`${what} failed during shutdown`, { error: redactError(error) });
        }
      };
      for (const ext of this.#extensions.values()) ext.onShutdownBegin?.();
      await Promise.all([...this.#receivers].map(([id, r]) => step(`receivers/${id}`, () => r.shutdown())));
      for (const p of this.#processors) await step('processor', () => p.shutdown?.());
      await Promise.all(
        [...this.#exporters].map(([id, e]) =>
          step(`exporters/${id}`, async () => {
            await e.forceFlush?.();
            await e.shutdown?.();
          }),
        ),
      );
      for (const u of this.#unwatch.splice(0)) u();
      for (const [id, ext] of [...this.#extensions].reverse()) await step(`extensions/${id}`, () => ext.shutdown());
      this.#stopProcessMetrics?.();
      await step('self-metrics', () => this.#metrics?.shutdown());
      if (this.#started) this.logger.info('shutdown complete');
    })();
    return this.#stopping;
  }
}
