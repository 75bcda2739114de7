import type { z } from 'zod';
import { ConfigError } from '../component/errors.ts';
import { authConfigSchema } from '../component/credential.ts';
import { redact } from '../component/redact.ts';
import { collectorConfigSchema, type TelemetryConfig } from '../config/collector-config.ts';
import { isComponentIdError, parseComponentId } from '../config/component-id.ts';
import type { UnsetVariable } from '../config/env-expansion.ts';
import { formatIssues, suggest } from '../config/format-issues.ts';
import { humanIssueMessage } from '../config/human-issues.ts';
import { isPlainObject, mergeConfig } from '../config/merge-config.ts';
import { knownKeysAt } from '../config/parse-receiver-config.ts';
import type { AzureEncodingConfig } from '../extensions/azure-encoding-extension.ts';
import { weakParse } from '../config/weak-parse.ts';
import { signalFormatProblem } from '../config/receiver-signals.ts';
import { unusedSignalKeyWarnings } from '../config/receiver-config-warnings.ts';
import type { ReceiverConfig } from '../config/receiver-config.ts';
import { SIGNALS, type Signal } from '../pipeline/signals.ts';
import {
  factorySignals,
  findFactory,
  knownTypes,
  type Components,
  type ComponentKind,
  type NamedFactory,
} from './components.ts';
import { sameHubIssues } from './same-hub-check.ts';

/** One configured component: its id, the factory its type selects, and its validated config. */
export interface ResolvedComponent<F> {
  /** As written: `type[/name]`. */
  readonly id: string;
  readonly type: string;
  readonly name: string;
  readonly factory: F;
  readonly config: unknown;
}

export interface ResolvedPipeline {
  readonly id: string;
  /** The pipeline's signal: the type part of its id (`metrics` for `metrics/azure`). */
  readonly signal: Signal;
  readonly receivers: readonly string[];
  readonly processors: readonly string[];
  readonly exporters: readonly string[];
}

/** A config that validated completely: every component has a factory and a parsed config; every reference resolves. */
export interface ResolvedConfig {
  readonly receivers: ReadonlyMap<string, ResolvedComponent<Components['receivers'][number]>>;
  readonly exporters: ReadonlyMap<string, ResolvedComponent<Components['exporters'][number]>>;
  readonly processors: ReadonlyMap<string, ResolvedComponent<Components['processors'][number]>>;
  readonly extensions: ReadonlyMap<string, ResolvedComponent<Components['extensions'][number]>>;
  readonly service: {
    /** Extensions to start: the listed ones plus auth extensions a receiver refers to. */
    readonly extensions: readonly string[];
    readonly pipelines: readonly ResolvedPipeline[];
    readonly telemetry: TelemetryConfig;
  };
  /** Non-fatal notes for the log: unset environment variables, configured but unused components. */
  readonly warnings: readonly string[];
}

const SINGULAR: Record<ComponentKind, string> = {
  receivers: 'receiver',
  exporters: 'exporter',
  processors: 'processor',
  extensions: 'extension',
};
/** Extension types a receiver's `auth: <id>` may point at. */
const AUTH_EXTENSION_TYPES = new Set(['azure_auth', 'azureauth']);

/**
 * Validates a loaded config against the known components, the way the collector does before it starts:
 * every section by its factory's schema (unknown keys rejected with a suggestion), every reference in
 * `service` (and every `auth: <extension>`) to a configured component. All problems are reported at once,
 * each with its dotted path; values are never quoted. Throws a ConfigError.
 */
export function resolveConfig(
  raw: Record<string, unknown>,
  components: Components,
  unset: readonly UnsetVariable[] = [],
): ResolvedConfig {
  const issues: string[] = [];
  // Weakly typed as the sections are: `port: "8888"` is the number 8888, as in the collector.
  const top = weakParse(collectorConfigSchema, raw);
  if (!top.success) issues.push(...formatIssues(top.error, [], (p) => knownKeysAt(collectorConfigSchema, p)));

  const warnings: string[] = unset.map(
    (u) => `environment variable ${u.name} is not set (used at ${u.path || 'the top level'})`,
  );
  const sections = {
    receivers: resolveSection('receivers', raw.receivers, components.receivers, issues, warnings),
    exporters: resolveSection('exporters', raw.exporters, components.exporters, issues, warnings),
    processors: resolveSection('processors', raw.processors, components.processors, issues, warnings),
    extensions: resolveSection('extensions', raw.extensions, components.extensions, issues, warnings),
  };
  if (isPlainObject(raw.connectors) && Object.keys(raw.connectors).length > 0)
    issues.push('connectors: not supported by this distribution; remove the section');
  if (top.success) warnings.push(...top.data.service.telemetry.warnings.map((w) => `service.telemetry.${w}`));
  const pipelines: ResolvedPipeline[] = [];
  const serviceExtensions: string[] = [];
  if (top.success) {
    const service = top.data.service;
    for (const [pipelineId, p] of Object.entries(service.pipelines)) {
      const prefix = `service.pipelines.${pipelineId}`;
      const id = parseComponentId(pipelineId);
      const signal = isComponentIdError(id) ? undefined : SIGNALS.find((s) => s === id.type);
      if (isComponentIdError(id)) issues.push(`${prefix}: ${id.error}`);
      else if (!signal) {
        const hint = suggest(id.type, [...SIGNALS]);
        const didYouMean = hint ? `; did you mean \`${hint}\`?` : '';
        issues.push(
          `${prefix}: unknown signal '${id.type}'; pipelines are logs, metrics or traces (or <signal>/` +
            `<name>)${didYouMean}`,
        );
      }
      checkReferences(`${prefix}.receivers`, 'receivers', p.receivers, declared(raw.receivers), issues);
      checkReferences(`${prefix}.processors`, 'processors', p.processors, declared(raw.processors), issues);
      checkReferences(`${prefix}.exporters`, 'exporters', p.exporters, declared(raw.exporters), issues);
      pipelines.push({
        id: pipelineId,
        signal: signal ?? 'logs',
        receivers: p.receivers,
        processors: p.processors,
        exporters: p.exporters,
      });
      if (signal) {
        checkReceiverSignals(prefix, signal, p.receivers, sections.receivers, issues);
        checkComponentSignals(prefix, signal, p, sections, issues);
      }
    }
    for (const [id, r] of sections.receivers) {
      const config = r.config as Partial<ReceiverConfig> | undefined;
      if (!config?.time_formats) continue;
      const fed = receiverSignals(pipelines, id);
      for (const w of unusedSignalKeyWarnings(config as ReceiverConfig, fed)) warnings.push(`receivers.${id}.${w}`);
    }
    checkReferences('service.extensions', 'extensions', service.extensions, declared(raw.extensions), issues);
    serviceExtensions.push(...service.extensions);
    const used = (kind: 'receivers' | 'exporters' | 'processors') => new Set(pipelines.flatMap((p) => p[kind]));
    issues.push(...sameHubIssues(sections.receivers, used('receivers')));
    for (const kind of ['receivers', 'exporters', 'processors'] as const) {
      for (const id of sections[kind].keys())
        if (!used(kind).has(id)) warnings.push(`${kind}.${id} is configured but not used in any pipeline`);
    }
  }

  // `auth: <id>` (Go receiver style) must name a configured auth extension; it is started with the others.
  // An inline auth object is checked here too, so `validate` finds what the receiver would refuse at start.
  for (const [id, r] of sections.receivers) {
    const auth = (r.config as { auth?: unknown } | undefined)?.auth;
    if (isPlainObject(auth)) {
      const parsed = authConfigSchema.safeParse(auth, { error: humanIssueMessage });
      if (!parsed.success) issues.push(...formatIssues(parsed.error, ['receivers', id, 'auth']));
      continue;
    }
    if (typeof auth !== 'string') continue;
    const ext = sections.extensions.get(auth);
    const path = `receivers.${id}.auth`;
    if (!ext && declared(raw.extensions).has(auth)) continue; // its own section failed and is reported already
    if (!ext) {
      const hint = suggest(auth, [...declared(raw.extensions)]);
      issues.push(
        `${path}: references extension '${auth}', which is not configured; add it under extensions (type ` +
          `azure_auth)${hint ? `; did you mean \`${hint}\`?` : ''}`,
      );
    } else if (!AUTH_EXTENSION_TYPES.has(ext.factory.type)) {
      issues.push(`${path}: extension '${auth}' is a ${ext.factory.type}, not an azure_auth extension`);
    } else if (!serviceExtensions.includes(auth)) {
      serviceExtensions.push(auth);
    }
  }

  applyEncodingExtensions(sections, declared(raw.extensions), issues);

  if (issues.length > 0) throw new ConfigError(annotateUnset(issues, unset).map(redact));
  const service = top.success ? top.data.service : undefined;
  return {
    ...sections,
    service: { extensions: serviceExtensions, pipelines, telemetry: service!.telemetry },
    warnings,
  };
}

type SectionFactory = NamedFactory & {
  configSchema: z.ZodType;
  createDefaultConfig(): unknown;
  configWarnings?(config: never): readonly string[];
};

function resolveSection<F extends SectionFactory>(
  kind: ComponentKind,
  section: unknown,
  factories: readonly F[],
  issues: string[],
  warnings: string[],
): Map<string, ResolvedComponent<F>> {
  const out = new Map<string, ResolvedComponent<F>>();
  if (!isPlainObject(section)) return out;
  for (const [key, value] of Object.entries(section)) {
    const path = `${kind}.${key}`;
    const id = parseComponentId(key);
    if (isComponentIdError(id)) {
      issues.push(`${path}: ${id.error}`);
      continue;
    }
    const factory = findFactory(factories, id.type);
    if (!factory) {
      const types = knownTypes(factories);
      const hint = suggest(id.type, types);
      issues.push(
        `${path}: unknown ${SINGULAR[kind]} type '${id.type}'${hint ? `; did you mean \`${hint}\`?` : ''} (known: ` +
          `${types.join(', ') || 'none'})`,
      );
      continue;
    }
    // `azure_event_hub:` with nothing under it is an empty section, as in the collector.
    const input = value === null || value === undefined ? {} : value;
    const parsed = weakParse(factory.configSchema, input);
    if (!parsed.success) {
      issues.push(...formatIssues(parsed.error, [kind, key], (p) => knownKeysAt(factory.configSchema, p)));
      continue;
    }
    const config = mergeConfig(factory.createDefaultConfig(), parsed.data);
    // Keys the component accepts but does not use are never silent: `validate` prints them, `run` logs them.
    // A line starting with ':' is about the whole section (`extensions.file_storage: ignored; ...`).
    for (const w of factory.configWarnings?.(config as never) ?? []) {
      warnings.push(w.startsWith(':') ? `${path}${w}` : `${path}.${w}`);
    }
    out.set(key, { id: key, type: factory.type, name: id.name, factory, config });
  }
  return out;
}

/** The signals of the pipelines that list receiver `id` (what it must decode). */
export function receiverSignals(pipelines: readonly ResolvedPipeline[], id: string): ReadonlySet<Signal> {
  return new Set(pipelines.filter((p) => p.receivers.includes(id)).map((p) => p.signal));
}

/**
 * A metrics or traces pipeline fed by a receiver whose format produces log records only (`raw`, `json`,
 * `azure_encoding`) would receive nothing, for ever: refused, naming the receiver's key and what to do.
 */
function checkReceiverSignals(
  prefix: string,
  signal: Signal,
  ids: readonly string[],
  receivers: ReadonlyMap<string, ResolvedComponent<unknown>>,
  issues: string[],
): void {
  for (const id of ids) {
    const config = receivers.get(id)?.config as Pick<ReceiverConfig, 'format' | 'encoding'> | undefined;
    if (config?.format === undefined) continue; // not configured, or not an azure_event_hub receiver
    const problem = signalFormatProblem(config, signal);
    if (problem) issues.push(`${prefix}.receivers: receivers.${id}.${problem}`);
  }
}

/**
 * A component whose factory does not handle the pipeline's signal (an exporter that exports logs only, in a
 * metrics pipeline) would be handed items it cannot send, or nothing: refused, naming the component.
 */
function checkComponentSignals(
  prefix: string,
  signal: Signal,
  pipeline: Pick<ResolvedPipeline, 'receivers' | 'processors' | 'exporters'>,
  sections: { [K in 'receivers' | 'processors' | 'exporters']: ReadonlyMap<string, ResolvedComponent<NamedFactory>> },
  issues: string[],
): void {
  const verbs = { receivers: 'feed', processors: 'process', exporters: 'export' } as const;
  for (const kind of ['receivers', 'processors', 'exporters'] as const) {
    for (const id of pipeline[kind]) {
      const factory = sections[kind].get(id)?.factory;
      if (!factory || factorySignals(factory).includes(signal)) continue;
      const handles = factorySignals(factory).join(', ');
      issues.push(
        `${prefix}.${kind}: ${kind}.${id} (type ${factory.type}) cannot ${verbs[kind]} ${signal}, only ${handles}; ` +
          `remove it from this pipeline or use another ${SINGULAR[kind]} that handles ${signal}`,
      );
    }
  }
}

/** Ids written in a section, whether or not they validated (so a broken section is not also reported as missing). */
function declared(section: unknown): Set<string> {
  return new Set(isPlainObject(section) ? Object.keys(section) : []);
}

function checkReferences(
  path: string,
  kind: ComponentKind,
  ids: readonly string[],
  defined: ReadonlySet<string>,
  issues: string[],
): void {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) issues.push(`${path}: '${id}' is listed twice`);
    seen.add(id);
    if (defined.has(id)) continue;
    const hint = suggest(id, [...defined.keys()]);
    issues.push(
      `${path}: references ${SINGULAR[kind]} '${id}', which is not ` +
        `configured${hint ? `; did you mean \`${hint}\`?` : ` under ${kind}`}`,
    );
  }
}

/** Adds "(environment variable X is not set)" to the issues at a path an unset variable expanded into. */
function annotateUnset(issues: readonly string[], unset: readonly UnsetVariable[]): string[] {
  return issues.map((line) => {
    const hit = unset.find((u) => u.path && (line.startsWith(`${u.path}:`) || line.startsWith(`${u.path}.`)));
    return hit ? `${line} (environment variable ${hit.name} is not set)` : line;
  });
}

/**
 * `encoding: azure_encoding[/name]` on a receiver (Go spelling; the receiver schema refuses other ids): the
 * named extension must be configured, as in the Go collector; its `logs` options become the receiver's time
 * formats and category filters unless the receiver sets its own.
 */
function applyEncodingExtensions(
  sections: Pick<ResolvedConfig, 'receivers' | 'extensions'>,
  declaredExtensions: ReadonlySet<string>,
  issues: string[],
): void {
  for (const [id, r] of sections.receivers) {
    const config = r.config as
      | {
          encoding?: unknown;
          time_formats?: { logs?: string[] };
          include_categories?: string[];
          exclude_categories?: string[];
        }
      | undefined;
    if (config === undefined || typeof config.encoding !== 'string') continue;
    const ext = sections.extensions.get(config.encoding);
    if (ext === undefined) {
      if (!declaredExtensions.has(config.encoding)) {
        issues.push(
          `receivers.${id}.encoding: references extension '${config.encoding}', which is not configured; add it ` +
            `under extensions (type azure_encoding)`,
        );
      }
      continue;
    }
    const logs = (ext.config as AzureEncodingConfig).logs;
    if (config.time_formats && (config.time_formats.logs ?? []).length === 0)
      config.time_formats.logs = logs.time_formats;
    if ((config.include_categories ?? []).length === 0) config.include_categories = logs.include_categories;
    if ((config.exclude_categories ?? []).length === 0) config.exclude_categories = logs.exclude_categories;
  }
}
