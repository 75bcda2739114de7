/**
 * One collector as a user runs it: `node bin/otelcol-azure-eventhub.js --config FILE` (dist/ built), the
 * `raw` format (every record carries its partition and sequence number), exporting with `otlphttp` to the
 * bench's sink under its own path. The health_check extension and the self-metrics endpoint bind free
 * ports, learned from their "listening" log lines. While it runs, health (and a liveness path when one is
 * given) is polled every second and kept as a timeline; stderr's JSON log lines are kept for counting.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from '../../../e2e/cli-process.ts';

export type Backend = 'polling' | 'streaming';

export interface CollectorOptions {
  readonly name: string;
  readonly dir: string;
  readonly backend: Backend;
  readonly group: string;
  readonly container: string;
  readonly hubConnection: string;
  readonly storageConnection: string;
  readonly exporterEndpoint: string;
  /** `checkpoint.interval` when set (else the product default). */
  readonly checkpointInterval?: string;
  /** A liveness path to poll besides the main endpoint, when the product has one. */
  readonly livenessPath?: string;
  /** Extra YAML lines under `extensions.health_check` (indented by the caller's four spaces). */
  readonly healthExtra?: string;
}

/** One health poll: HTTP status, the body's status and reason (undefined when the request failed). */
export interface HealthSample {
  readonly at: number;
  readonly code: number | undefined;
  readonly status?: string;
  readonly reason?: string;
  /** The body names the exporter (`otlphttp`). */
  readonly namesExporter?: boolean;
  readonly liveCode?: number;
  readonly body?: string;
}

export interface LogLine {
  readonly level?: string;
  readonly msg?: string;
  readonly at: number;
  readonly raw: string;
}

const HEALTH_POLL_MS = 1_000;
/** Generous: the machine is shared, and a slow answer is reported as `no answer`, apart from a refusal. */
const HEALTH_TIMEOUT_MS = 2_000;

export function collectorConfig(o: CollectorOptions): string {
  return `receivers:
  azure_event_hub:
    connection: \${env:EH_CONNECTION}
    group: ${o.group}
    backend: ${o.backend}
    format: raw
    start_position: earliest
    blob_checkpoint_store:
      connection: \${env:STORAGE_CONNECTION}
      container_name: ${o.container}
      create_container: true
    ownership:
      owner_id: ${o.name}
${o.checkpointInterval ? `    checkpoint:\n      interval: ${o.checkpointInterval}\n` : ''}exporters:
  otlphttp:
    endpoint: ${o.exporterEndpoint}
extensions:
  health_check:
    endpoint: 127.0.0.1:0
${o.healthExtra ?? ''}service:
  extensions: [health_check]
  pipelines:
    logs:
      receivers: [azure_event_hub]
      exporters: [otlphttp]
  telemetry:
    logs:
      level: info
    metrics:
      address: 127.0.0.1:0
`;
}

async function get(url: string): Promise<{ code: number; body: string } | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
    return { code: res.status, body: await res.text() };
  } catch {
    return undefined;
  }
}

export class Collector {
  readonly options: CollectorOptions;
  readonly child: ChildProcess;
  readonly startedAt = Date.now();
  readonly health: HealthSample[] = [];
  readonly logs: LogLine[] = [];
  readonly exited: Promise<void>;
  killedAt: number | undefined;
  #healthUrl: string | undefined;
  #metricsUrl: string | undefined;
  #buffer = '';
  #poller: NodeJS.Timeout | undefined;

  constructor(options: CollectorOptions) {
    this.options = options;
    const configPath = join(options.dir, `${options.name}.yaml`);
    writeFileSync(configPath, collectorConfig(options));
    this.child = spawn(process.execPath, [BIN, '--config', configPath], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        EH_CONNECTION: options.hubConnection,
        STORAGE_CONNECTION: options.storageConnection,
      },
    });
    this.child.stderr!.on('data', (c: Buffer) => this.#onStderr(c));
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    void this.exited.then(() => clearInterval(this.#poller));
  }

  get name(): string {
    return this.options.name;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  #onStderr(chunk: Buffer): void {
    this.#buffer += chunk.toString();
    let nl: number;
    while ((nl = this.#buffer.indexOf('\n')) >= 0) {
      const raw = this.#buffer.slice(0, nl);
      this.#buffer = this.#buffer.slice(nl + 1);
      let line: { level?: string; msg?: string; endpoint?: string } = {};
      try {
        line = JSON.parse(raw) as typeof line;
      } catch {
        // A non-JSON line (a crash trace) is kept with no level.
      }
      this.logs.push({ level: line.level, msg: line.msg, at: Date.now(), raw });
      if (line.msg === 'health check endpoint listening') {
        this.#healthUrl = `http://${line.endpoint}`;
        this.#startPolling();
      }
      if (line.msg === 'self-metrics endpoint listening') this.#metricsUrl = `http://${line.endpoint}/metrics`;
    }
  }

  #startPolling(): void {
    let busy = false;
    this.#poller = setInterval(() => {
      if (busy || !this.alive) return;
      busy = true;
      void this.#sample().finally(() => (busy = false));
    }, HEALTH_POLL_MS);
  }

  async #sample(): Promise<void> {
    const at = Date.now();
    const [main, live] = await Promise.all([
      get(`${this.#healthUrl}/`),
      this.options.livenessPath ? get(`${this.#healthUrl}${this.options.livenessPath}`) : Promise.resolve(undefined),
    ]);
    let status: string | undefined;
    let reason: string | undefined;
    if (main) {
      try {
        const body = JSON.parse(main.body) as { status?: string; receivers?: Record<string, { reason?: string }> };
        status = body.status;
        reason = Object.values(body.receivers ?? {})
          .map((r) => r.reason)
          .find(Boolean);
      } catch {
        status = 'unparsable';
      }
    }
    const sample: HealthSample = {
      at,
      code: main?.code,
      status,
      reason,
      namesExporter: main ? main.body.includes('otlphttp') : undefined,
      ...(this.options.livenessPath ? { liveCode: live?.code } : {}),
      ...(main && main.code !== 200 ? { body: main.body.slice(0, 1500) } : {}),
    };
    if (this.alive) this.health.push(sample);
  }

  /**
   * Every sample of the self-metrics whose name matches, summed over labels: name → value; undefined if unreachable.
   */
  async metrics(match: RegExp): Promise<Record<string, number> | undefined> {
    if (!this.#metricsUrl) return undefined;
    const res = await get(this.#metricsUrl);
    if (!res) return undefined;
    const sums: Record<string, number> = {};
    for (const line of res.body.split('\n')) {
      if (line.startsWith('#')) continue;
      const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
      if (m && match.test(m[1]!)) sums[m[1]!] = (sums[m[1]!] ?? 0) + Number(m[3]);
    }
    return sums;
  }

  /** kill -9. */
  async kill(): Promise<void> {
    this.killedAt = Date.now();
    if (this.alive) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM, then SIGKILL after `timeoutMs`. */
  async stop(timeoutMs = 60_000): Promise<void> {
    if (this.alive) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Log lines at warn or error (or fatal). */
  problems(): LogLine[] {
    return this.logs.filter((l) => l.level === 'warn' || l.level === 'error' || l.level === 'fatal');
  }
}
