import { parse as parseYaml } from 'yaml';
import { splitKeyPath } from './key-path.ts';
import { isPlainObject } from './merge-config.ts';

/**
 * One `--set key::path=value` flag, as the collector takes it: the path is split on `::` (or on `.`, the
 * older form, when there is no `::`; component ids such as `azure_event_hub/audit` keep their `/`), and
 * the value is read as a YAML scalar or flow collection (`--set service::pipelines::logs::exporters=[debug,file]`).
 */
export interface SetOverride {
  readonly path: readonly string[];
  readonly value: unknown;
}

/** Parses `key::path=value` or `key.path=value`; returns a message instead of throwing (it is a usage error). */
export function parseSetOverride(flag: string): SetOverride | { readonly error: string } {
  const eq = flag.indexOf('=');
  if (eq <= 0) return { error: `--set '${flag.split('=')[0]}': expected key::path=value (or key.path=value)` };
  const path = splitKeyPath(flag.slice(0, eq));
  if (path.some((p) => p.length === 0)) return { error: `--set '${flag.slice(0, eq)}': empty segment in the key path` };
  const raw = flag.slice(eq + 1);
  let value: unknown;
  try {
    value = raw === '' ? '' : parseYaml(raw);
  } catch {
    // Not valid YAML on its own (e.g. `a: b: c`): take it as the plain string it is.
    value = raw;
  }
  return { path, value: value ?? '' };
}

/** Returns a copy of `config` with `value` at `path`, creating maps on the way; a scalar on the way is replaced. */
export function applySetOverride(config: unknown, override: SetOverride): Record<string, unknown> {
  const root: Record<string, unknown> = isPlainObject(config) ? { ...config } : {};
  let node = root;
  override.path.forEach((key, i) => {
    if (i === override.path.length - 1) {
      node[key] = override.value;
      return;
    }
    const next = node[key];
    const copy: Record<string, unknown> = isPlainObject(next) ? { ...next } : {};
    node[key] = copy;
    node = copy;
  });
  return root;
}
