import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { ConfigError } from '../component/errors.ts';
import { redact } from '../component/redact.ts';
import { expandEnv, type UnsetVariable } from './env-expansion.ts';
import { expandDelimitedKeys } from './key-path.ts';
import { isPlainObject, mergeConfig } from './merge-config.ts';
import { applySetOverride, parseSetOverride } from './set-override.ts';

export interface LoadConfigOptions {
  /** `--config` values, merged in order (later wins): paths or `file:<path>`, `env:<VAR>`, `yaml:<inline document>`. */
  readonly configs: readonly string[];
  /** `--set key::path=value` (or `key.path=value`) flags, applied after the files, in order. Default none. */
  readonly sets?: readonly string[];
  /** Variables for `${env:VAR}` and `--config env:VAR`. Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface LoadedConfig {
  /** The merged, expanded tree, not yet validated. */
  readonly raw: Record<string, unknown>;
  /** Referenced variables that are not set (expanded to ""): worth a warning, and an error if the value is required. */
  readonly unset: readonly UnsetVariable[];
}

/**
 * Reads every `--config` source, parses YAML (duplicate keys are errors; `a::b:` keys nest), merges the
 * documents in order, applies `--set` overrides, then expands `${env:...}` and `${file:...}` in string
 * values. Every problem in every source is collected; they are thrown together as one ConfigError.
 * Messages never quote the YAML text (a line may hold a secret), only positions.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const issues: string[] = [];
  if (options.configs.length === 0) throw new ConfigError(['--config: required; give at least one config file']);
  const env = options.env ?? process.env;
  let merged: unknown = {};
  for (const source of options.configs) {
    const doc = await readSource(source, env, issues);
    if (doc === undefined) continue;
    merged = mergeConfig(merged, doc);
  }
  for (const flag of options.sets ?? []) {
    const override = parseSetOverride(flag);
    if ('error' in override) issues.push(redact(override.error));
    else merged = applySetOverride(merged, override);
  }
  const expanded = expandEnv(merged, env);
  issues.push(...expanded.errors);
  if (issues.length > 0) throw new ConfigError(issues);
  return { raw: isPlainObject(expanded.value) ? expanded.value : {}, unset: expanded.unset };
}

/** A `--config` value that names a provider (`env:`, `http:`, ...), not a path; one letter is a Windows drive. */
const PROVIDER_URI = /^([A-Za-z][A-Za-z0-9+.-]+):/;

/**
 * The text of one `--config` value, by the collector's provider URIs: `file:<path>` (or a plain path),
 * `env:<VAR>` (the variable holds the YAML) and `yaml:<inline document>`. Other providers are named in
 * the message with what to use instead.
 */
type Env = Readonly<Record<string, string | undefined>>;

async function readText(
  source: string,
  env: Env,
  issues: string[],
): Promise<{ text: string; name: string } | undefined> {
  if (source.startsWith('yaml:')) return { text: source.slice('yaml:'.length), name: '--config yaml:' };
  if (source.startsWith('env:')) {
    const variable = source.slice('env:'.length);
    const name = `--config env:${variable}`;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) {
      issues.push(`${name}: '${variable}' is not an environment variable name`);
      return undefined;
    }
    const text = env[variable];
    if (text === undefined || text.trim() === '') {
      const state = text === undefined ? 'not set' : 'empty';
      issues.push(`${name}: environment variable ${variable} is ${state}; it should hold the config's YAML`);
      return undefined;
    }
    return { text, name };
  }
  const provider = PROVIDER_URI.exec(source)?.[1];
  if (provider !== undefined && provider !== 'file') {
    const shown = redact(provider);
    const instead = 'use file:<path>, env:<VAR> or yaml:<document>';
    issues.push(`--config ${shown}:...: the '${shown}' provider is not available; ${instead}`);
    return undefined;
  }
  const name = provider === 'file' ? source.slice('file:'.length) : source;
  try {
    return { text: await readFile(name, 'utf8'), name };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    issues.push(
      `${name}: cannot read the config file${code === 'ENOENT' ? ' (no such file)' : code ? ` (${code})` : ''}`,
    );
    return undefined;
  }
}

async function readSource(source: string, env: Env, issues: string[]): Promise<unknown> {
  const read = await readText(source, env, issues);
  if (!read) return undefined;
  const { text, name } = read;
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
  return expandDelimitedKeys(value);
}
