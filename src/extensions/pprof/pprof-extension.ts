import { writeFile } from 'node:fs/promises';
import { z } from 'zod';
import type { HttpListener } from '../../telemetry/http-listener.ts';
import { startCpuProfile, type CpuProfile } from './cpu-profiler.ts';
import { DEFAULT_PPROF_ENDPOINT, startPprofServer } from './pprof-server.ts';
import type { Extension, ExtensionFactory } from '../extension-factory.ts';

/** True for `localhost:…`, `127.x.y.z:…` and `[::1]:…`: the addresses only this host can reach. */
export function isLoopbackEndpoint(endpoint: string): boolean {
  const host = /^(?:\[([^\]]+)\]|([^:]*)):\d+$/.exec(endpoint.trim());
  const name = (host?.[1] ?? host?.[2] ?? '').toLowerCase();
  return name === 'localhost' || name === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** The `pprof` section, with the Go collector's pprof extension keys. */
export const pprofConfigSchema = z.strictObject({
  /**
   * `host:port` on loopback; port 0 picks a free port (logged at start). Default localhost:1777. Other hosts
   * are refused: a heap snapshot holds every secret in memory. Reach it with `kubectl port-forward` or `ssh -L`.
   */
  endpoint: z
    .string()
    .min(1)
    .default(DEFAULT_PPROF_ENDPOINT)
    .refine(isLoopbackEndpoint, {
      message:
        'must be a loopback address (localhost, 127.0.0.1 or [::1]) because a heap snapshot holds every ' +
        'secret in memory; reach it with `kubectl port-forward` or `ssh -L`',
    }),
  /** Go runtime settings; Node has no block or mutex profiles, so a non-zero value is warned about. Default 0. */
  block_profile_fraction: z.number().min(0).default(0),
  mutex_profile_fraction: z.number().min(0).default(0),
  /** A file to write a CPU profile of the whole run to (`.cpuprofile`), from start to shutdown. Default none. */
  save_to_file: z.string().optional(),
});

export type PprofConfig = z.output<typeof pprofConfigSchema>;

export interface PprofExtension extends Extension {
  address(): { host: string; port: number } | undefined;
}

/**
 * `pprof`: the Go collector's profiling extension, in Node's terms. It serves V8 CPU profiles and heap
 * snapshots on demand on loopback (`/debug/pprof/profile?seconds=N`, `/debug/pprof/heap`), the files Chrome
 * DevTools and VS Code open, not Go's pprof protobuf.
 */
export const pprofExtensionFactory: ExtensionFactory<PprofConfig> = {
  type: 'pprof',
  stability: 'alpha',
  configSchema: pprofConfigSchema,
  createDefaultConfig: () => ({
    endpoint: DEFAULT_PPROF_ENDPOINT,
    block_profile_fraction: 0,
    mutex_profile_fraction: 0,
  }),
  async create(settings, config): Promise<PprofExtension> {
    const stopping = new AbortController();
    let listener: HttpListener | undefined;
    let whole: { stop(): Promise<CpuProfile> } | undefined;
    let stopped: Promise<void> | undefined;
    for (const key of ['block_profile_fraction', 'mutex_profile_fraction'] as const) {
      if (config[key] > 0) settings.logger.warn(`pprof.${key} is a Go runtime setting and is ignored by Node`);
    }
    return {
      address: () => (listener ? { host: listener.host, port: listener.port } : undefined),
      async start() {
        listener = await startPprofServer(config.endpoint, settings.logger, stopping.signal);
        if (config.save_to_file) whole = await startCpuProfile();
        settings.logger.info('pprof endpoint listening', {
          endpoint: listener.host.includes(':')
            ? `[${listener.host}]:${listener.port}`
            : `${listener.host}:${listener.port}`,
          paths: '/debug/pprof/profile,/debug/pprof/heap',
          ...(config.save_to_file ? { saveToFile: config.save_to_file } : {}),
        });
      },
      shutdown() {
        stopped ??= (async () => {
          stopping.abort();
          await listener?.close();
          if (whole && config.save_to_file) {
            const profile = await whole.stop();
            await writeFile(config.save_to_file, JSON.stringify(profile));
            settings.logger.info('CPU profile of the run written', { file: config.save_to_file });
          }
        })();
        return stopped;
      },
    };
  },
};
