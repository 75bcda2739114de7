import { z } from 'zod';
import { durationMs } from '../../component/duration.ts';
import type { HttpListener } from '../../telemetry/http-listener.ts';
import type { EventHubzReceiver } from './eventhubz-page.ts';
import { DEFAULT_SAMPLE_INTERVAL_MS, FleetRecorder, type ObservedReceiver } from './fleet-recorder.ts';
import { ZPAGES } from './html.ts';
import { DEFAULT_ZPAGES_ENDPOINT, startZPagesServer } from './zpages-server.ts';
import type { Extension, ExtensionFactory, ServiceInfo } from '../extension-factory.ts';
import { packageVersion } from '../../component/package-version.ts';

/** The `zpages` section: `endpoint` as in the collector's zpages extension, plus how often lag is sampled. */
export const zpagesConfigSchema = z.strictObject({
  /** `host:port`; port 0 picks a free port (logged at start). Default localhost:55679 (loopback only). */
  endpoint: z.string().min(1).default(DEFAULT_ZPAGES_ENDPOINT),
  /**
   * How often the lag charts look at each receiver's hub-lag monitor (no I/O; a sample is kept only when the
   * monitor refreshed since). Default 5s.
   */
  sample_interval: durationMs.default(DEFAULT_SAMPLE_INTERVAL_MS),
  /** Go collector key (Go's expvar JSON), accepted; Node has no expvar, so `enabled: true` is warned about. */
  expvar: z.strictObject({ enabled: z.boolean().default(false) }).optional(),
});

export type ZPagesConfig = z.output<typeof zpagesConfigSchema>;

/** The running extension, with its bound address for the tests and the service log. */
export interface ZPagesExtension extends Extension {
  address(): { host: string; port: number } | undefined;
}

function observable(receiver: unknown): receiver is ObservedReceiver {
  const r = receiver as Partial<ObservedReceiver>;
  return typeof r.stats === 'function' && typeof r.onStatus === 'function' && typeof r.ownedPartitions === 'function';
}

function retentionOf(config: unknown): number | undefined {
  const retention = (config as { retention?: unknown } | undefined)?.retention;
  return typeof retention === 'number' && retention > 0 ? retention : undefined;
}

/**
 * `zpages`: live HTML pages about the running service (servicez, pipelinez, extensionz, featurez) and the
 * Event Hubs fleet (eventhubz: ownership map, lag with 15-minute charts, retention headroom, last errors).
 */
export const zpagesExtensionFactory: ExtensionFactory<ZPagesConfig> = {
  type: 'zpages',
  stability: 'alpha',
  configSchema: zpagesConfigSchema,
  createDefaultConfig: () => ({ endpoint: DEFAULT_ZPAGES_ENDPOINT, sample_interval: DEFAULT_SAMPLE_INTERVAL_MS }),
  async create(settings, config): Promise<ZPagesExtension> {
    const recorders = new Map<string, FleetRecorder>();
    let info: ServiceInfo | undefined;
    let listener: HttpListener | undefined;
    let timer: NodeJS.Timeout | undefined;
    let stopped: Promise<void> | undefined;
    const version = await packageVersion();
    if (config.expvar?.enabled)
      settings.logger.warn('zpages.expvar is a Go feature and is ignored here; use /debug/servicez');
    // A page load samples too (cheap, no I/O), so the page shows the monitor's latest refresh.
    const receivers = (): EventHubzReceiver[] =>
      [...recorders].map(([id, recorder]) => {
        recorder.sample();
        return { id, recorder, retentionMs: retentionOf(info?.receiverConfigs.get(id)) };
      });
    return {
      address: () => (listener ? { host: listener.host, port: listener.port } : undefined),
      onReceiverCreated(receiverId, receiver) {
        if (observable(receiver)) recorders.set(receiverId, new FleetRecorder(receiver));
      },
      onServiceBuilt(built) {
        info = built;
      },
      async start() {
        if (stopped) throw new Error('zpages extension was shut down');
        listener = await startZPagesServer({ info: () => info, receivers, version }, config.endpoint, settings.logger);
        timer = setInterval(() => {
          for (const r of recorders.values()) r.sample();
        }, config.sample_interval);
        timer.unref();
        settings.logger.info('zpages endpoint listening', {
          endpoint: listener.host.includes(':')
            ? `[${listener.host}]:${listener.port}`
            : `${listener.host}:${listener.port}`,
          paths: ZPAGES.map(([href]) => href).join(','),
        });
      },
      shutdown() {
        stopped ??= (async () => {
          clearInterval(timer);
          for (const r of recorders.values()) r.stop();
          await listener?.close();
        })();
        return stopped;
      },
    };
  },
};
