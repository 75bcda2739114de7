import { z } from 'zod';
import { durationMs } from '../../component/duration.ts';
import { DEFAULT_HEALTH_ENDPOINT, DEFAULT_LIVENESS_PATH, startHealthCheckServer } from './health-check-server.ts';
import { DEFAULT_WEDGED_AFTER_MS, liveness, type LivenessSource } from './liveness.ts';
import { DEFAULT_DEGRADED_AFTER_MS, DEFAULT_UNHEALTHY_AFTER_MS, HealthState } from '../../telemetry/health-state.ts';
import type { HttpListener } from '../../telemetry/http-listener.ts';
import type { AzureEventHubReceiver } from '../../receiver/receiver.ts';
import type { Extension, ExtensionFactory } from '../extension-factory.ts';

/** The `health_check` section; `endpoint` and `path` as in the collector's health_check extension. */
export const healthCheckConfigSchema = z.strictObject({
  /** `host:port`; port 0 picks a free port (logged at start). Default 127.0.0.1:13133. */
  endpoint: z.string().min(1).default(DEFAULT_HEALTH_ENDPOINT),
  /** Path of the readiness probe; `/health` and `/readyz` always answer too. Default `/`. */
  path: z.string().startsWith('/', 'must start with /').default('/'),
  /** Path of the liveness probe: fails only when the process is wedged, never for an outage. Default `/livez`. */
  liveness_path: z.string().startsWith('/', 'must start with /').default(DEFAULT_LIVENESS_PATH),
  /** How long a partition may be reading without any progress before liveness fails. Default 2m. */
  wedged_after: durationMs.default(DEFAULT_WEDGED_AFTER_MS),
  /**
   * How long the hub may stay unreachable (or checkpoints keep failing) before the probe says unhealthy. Default 30s.
   */
  unhealthy_after: durationMs.default(DEFAULT_UNHEALTHY_AFTER_MS),
  /**
   * How long a partition may keep retrying (a failing reader, a refused batch) before the probe says degraded. Default
   * 30s.
   */
  degraded_after: durationMs.default(DEFAULT_DEGRADED_AFTER_MS),
  /** Go collector keys, accepted and ignored: pipeline checks are replaced by the receiver status above. */
  check_collector_pipeline: z.looseObject({}).optional(),
  response_body: z.looseObject({}).optional(),
});

export type HealthCheckConfig = z.output<typeof healthCheckConfigSchema>;

function watchesStatus(receiver: unknown): receiver is Pick<AzureEventHubReceiver, 'onStatus'> {
  return typeof (receiver as { onStatus?: unknown }).onStatus === 'function';
}

function hasStats(receiver: unknown): receiver is LivenessSource {
  return typeof (receiver as { stats?: unknown }).stats === 'function';
}

/** The running extension with its state exposed, for the service's log line and for tests. */
export interface HealthCheckExtension extends Extension {
  readonly state: HealthState;
  /** The bound address once started. */
  address(): { host: string; port: number } | undefined;
}

/** `health_check`: not ready until every receiver reached its hub and owns partitions (or stands by). */
export const healthCheckExtensionFactory: ExtensionFactory<HealthCheckConfig> = {
  type: 'health_check',
  aliases: ['healthcheck'],
  stability: 'beta',
  configSchema: healthCheckConfigSchema,
  createDefaultConfig: () => ({
    endpoint: DEFAULT_HEALTH_ENDPOINT,
    path: '/',
    liveness_path: DEFAULT_LIVENESS_PATH,
    wedged_after: DEFAULT_WEDGED_AFTER_MS,
    unhealthy_after: DEFAULT_UNHEALTHY_AFTER_MS,
    degraded_after: DEFAULT_DEGRADED_AFTER_MS,
  }),
  configWarnings: (config) =>
    (['check_collector_pipeline', 'response_body'] as const)
      .filter((key) => config[key] !== undefined)
      .map((key) => `${key}: ignored; the probe answers from the receivers' status (unhealthy_after, degraded_after)`),
  async create(settings, config): Promise<HealthCheckExtension> {
    const state = new HealthState({ unhealthyAfterMs: config.unhealthy_after, degradedAfterMs: config.degraded_after });
    const unsubscribes: (() => void)[] = [];
    const watched = new Map<string, LivenessSource>();
    let listener: HttpListener | undefined;
    let stopped: Promise<void> | undefined;
    return {
      state,
      address: () => (listener ? { host: listener.host, port: listener.port } : undefined),
      onReceiverCreated(receiverId, receiver) {
        if (hasStats(receiver)) watched.set(receiverId, receiver);
        if (!watchesStatus(receiver)) return;
        state.register(receiverId);
        unsubscribes.push(receiver.onStatus((status) => state.update(receiverId, status)));
      },
      onExportAttempt(exporterId, attempt) {
        state.exportAttempt(exporterId, attempt);
      },
      onShutdownBegin() {
        state.stopping();
      },
      async start() {
        listener = await startHealthCheckServer(state, {
          endpoint: config.endpoint,
          path: config.path,
          livenessPath: config.liveness_path,
          liveness: () => liveness(watched, config.wedged_after),
        });
        settings.logger.info('health check endpoint listening', {
          endpoint: `${listener.host}:${listener.port}`,
          path: config.path,
          liveness_path: config.liveness_path,
        });
      },
      shutdown() {
        stopped ??= (async () => {
          state.stopping();
          for (const u of unsubscribes.splice(0)) u();
          await listener?.close();
        })();
        return stopped;
      },
    };
  },
};
