import { hostname } from 'node:os';
import type { ServiceInfo } from '../extension-factory.ts';
import { bytes, duration, esc, isoTime, keyValues, raw, table } from './html.ts';

/** What the service pages show beside the service info. */
export interface ProcessFacts {
  readonly version: string;
  readonly now: number;
}

const NOT_BUILT = '<p class="warn">The service is still starting; reload in a moment.</p>';

/** `/debug/servicez`: the build, the process and its resources, and where the other endpoints are. */
export function servicezBody(info: ServiceInfo | undefined, facts: ProcessFacts): string {
  const mem = process.memoryUsage();
  const cpu = process.cpuUsage();
  const metrics = info?.metricsAddress;
  return keyValues([
    ['Distribution', `otelcol-azure-eventhub ${facts.version}`],
    ['Node.js', `${process.version} (V8 ${process.versions.v8}) on ${process.platform}/${process.arch}`],
    ['Host', hostname()],
    ['service.instance.id', info?.serviceInstanceId ?? '— (self-metrics off)'],
    ['Process id', process.pid],
    ['Started', info ? isoTime(info.startedAt) : '—'],
    ['Uptime', duration(process.uptime())],
    ['Resident memory', bytes(mem.rss)],
    ['JS heap', `${bytes(mem.heapUsed)} used of ${bytes(mem.heapTotal)}`],
    [
      'CPU time',
      `${duration((cpu.user + cpu.system) / 1e6)} (user ${(cpu.user / 1e6).toFixed(1)} s, ` +
        `system ${(cpu.system / 1e6).toFixed(1)} s)`,
    ],
    ['Self-metrics', metrics ? raw(`<code>http://${esc(hostPort(metrics.host, metrics.port))}/metrics</code>`) : 'off'],
    ['Pipelines', info ? info.pipelines.length : '—'],
    ['Components', info ? info.components.length : '—'],
  ]);
}

/** `/debug/pipelinez`: each pipeline's receivers → processors → exporters with their types and stability. */
export function pipelinezBody(info: ServiceInfo | undefined): string {
  if (!info) return NOT_BUILT;
  const byId = (kind: string, id: string) => info.components.find((c) => c.kind === kind && c.id === id);
  const list = (kind: string, ids: readonly string[]) =>
    ids.length === 0
      ? raw('<span class="muted">none</span>')
      : raw(
          ids
            .map((id) => `<code>${esc(id)}</code> <span class="muted">${esc(byId(kind, id)?.stability ?? '')}</span>`)
            .join('<br>'),
        );
  return table(
    ['Pipeline', 'Receivers', '→ Processors', '→ Exporters'],
    info.pipelines.map((p) => [
      p.id,
      list('receivers', p.receivers),
      list('processors', p.processors),
      list('exporters', p.exporters),
    ]),
  );
}

/** `/debug/extensionz`: the extensions started, with their types and stability. */
export function extensionzBody(info: ServiceInfo | undefined): string {
  if (!info) return NOT_BUILT;
  const ext = info.components.filter((c) => c.kind === 'extensions');
  if (ext.length === 0) return '<p>No extensions are configured.</p>';
  return table(
    ['Extension', 'Type', 'Stability'],
    ext.map((e) => [e.id, e.type, e.stability]),
  );
}

/** `/debug/featurez`: every feature gate, its stage and whether it is on. */
export function featurezBody(info: ServiceInfo | undefined): string {
  if (!info) return NOT_BUILT;
  return (
    table(
      ['Gate', 'Enabled', 'Stage', 'Description'],
      info.featureGates.map((g) => [
        g.id,
        g.enabled ? 'yes' : 'no',
        g.stage,
        raw(`<span class="wrap">${esc(g.description)}</span>`),
      ]),
    ) + '<p class="muted">Set with <code>--feature-gates=+id,-id</code> or <code>OTELCOL_FEATURE_GATES</code>.</p>'
  );
}

function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
