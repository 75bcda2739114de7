import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { ConfigError } from '../component/errors.ts';
import { redact } from '../component/redact.ts';
import { expandEnv, type UnsetVariable } from './env-expansion.ts';
import { isPlainObject, mergeConfig } from './merge-config.ts';
import { applySetOverride, parseSetOverride } from './set-override.ts';

export interface LoadConfigOptions {
  /** `--config` values, merged in order (later wins): file paths, or `yaml:<inline document>`. */
  readonly configs: readonly string[];
  /** `--set key.path=value` flags, applied after the files, in order. Default none. */
  readonly sets?: readonly string[];
  /** Variables for `${env:VAR}`. Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface LoadedConfig {
  /** The merged, expanded tree, not yet validated. */
  readonly raw: Record<string, unknown>;
  /** Referenced variables that are not set (expanded to ""): worth a warning, and an error if the value is required. */
  readonly unset: readonly UnsetVariable[];
}

/**
 * Reads every `--config` source, parses YAML (duplicate keys are errors), merges the documents in order,
 * applies `--set` overrides, then expands `${env:...}` in string values. Every problem in every source is
 * collected; they are thrown together as one ConfigError. Messages never quote the YAML text (a line may
 * hold a secret), only positions.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const issues: string[] = [];
  if (options.configs.length === 0) throw new ConfigError(['--config: required; give at least one config file']);
  let merged: unknown = {};
  for (const source of options.configs) {
    const doc = await readSource(source, issues);
    if (doc === undefined) continue;
    merged = mergeConfig(merged, doc);
  }
  for (const flag of options.sets ?? []) {
    const override = parseSetOverride(flag);
    if ('error' in override) issues.push(redact(override.error));
    else merged = applySetOverride(merged, override);
  }
  const expanded = expandEnv(merged, options.env ?? process.env);
  issues.push(...expanded.errors);
  if (issues.length > 0) throw new ConfigError(issues);
  return { raw: isPlainObject(expanded.value) ? expanded.value : {}, unset: expanded.unset };
}

async function readSource(source: string, issues: string[]): Promise<unknown> {
  let text: string;
  let name: string;
  if (source.startsWith('yaml:')) {
    text = source.slice('yaml:'.length);
    name = '--config yaml:';
  } else {
    name = source.startsWith('file:') ? source.slice('file:'.length) : source;
    try {
      text = await readFile(name, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      issues.push(`${name}: cannot read the config file${code === 'ENOENT' ? ' (no such file)' : code ? ` (${code})` : ''}`);
      return undefined;
    }
  }
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    // The first line of a yaml error names the problem and its position; the rest quotes the source.
    for (const e of doc.errors) issues.push(redact(`${name}: ${e.message.split('\n')[0]!.replace(/:$/, '')}`));
    return undefined;
  }
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  if (value === null || value === undefined) return {};
  if (!isPlainObject(value)) {
    issues.push(`${name}: the document must be a map with receivers, exporters and service`);
    return undefined;
  }
  return value;
}
