import { readFileSync } from 'node:fs';

/**
 * `${env:VAR}`, `${env:VAR:-default}`, `${VAR}` and `${file:path}` expansion the way the collector does it, applied to
 * the string values of the already-parsed YAML tree. Expanding after parsing means a variable can never
 * add keys, lists or documents: whatever it holds stays inside the one value it was written in.
 * `$$` writes a literal `$`. Keys are never expanded.
 */

/**
 * A variable that was referenced but is not set (and had no default). A value that is exactly that one
 * reference is left out of its map (so the schema reports it as missing or applies its default); inside
 * a longer string or a list it expands to an empty string.
 */
export interface UnsetVariable {
  readonly name: string;
  /** Dotted path of the value that referenced it. */
  readonly path: string;
}

export interface EnvExpansionResult {
  readonly value: unknown;
  readonly unset: readonly UnsetVariable[];
  /** Malformed references, one line each with its dotted path. */
  readonly errors: readonly string[];
}

/** What a value that is exactly one unset reference expands to: the key is dropped from its map. */
const UNSET_VALUE = Symbol('unset');

// `$$` (escape), or `${...}` up to the first `}`. Defaults cannot hold `}` (as in the collector).
const REFERENCE = /\$\$|\$\{([^}]*)\}/g;
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NUMBER = /^-?(?:\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|0x[0-9a-fA-F]+)$/;

/** Expands every string value in `tree` (a parsed YAML document); returns a new tree. */
export function expandEnv(
  tree: unknown,
  env: Readonly<Record<string, string | undefined>> = process.env,
): EnvExpansionResult {
  const unset: UnsetVariable[] = [];
  const errors: string[] = [];
  const walk = (node: unknown, path: readonly (string | number)[]): unknown => {
    if (typeof node === 'string') return expandString(node, path.join('.'), env, unset, errors);
    if (Array.isArray(node))
      return node.map((item, i) => walk(item, [...path, i])).map((v) => (v === UNSET_VALUE ? '' : v));
    if (node !== null && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(node)) {
        const expanded = walk(value, [...path, key]);
        // `key: ${env:UNSET}` leaves the key out, so the schema says "required" (or uses its default)
        // instead of complaining about an empty string.
        if (expanded !== UNSET_VALUE) out[key] = expanded;
      }
      return out;
    }
    return node;
  };
  return { value: walk(tree, []), unset, errors };
}

function expandString(
  text: string,
  path: string,
  env: Readonly<Record<string, string | undefined>>,
  unset: UnsetVariable[],
  errors: string[],
): unknown {
  if (!text.includes('$')) return text;
  let references = 0;
  let whole = false;
  let wholeUnset = false;
  const out = text.replace(REFERENCE, (match, body: string | undefined, index: number) => {
    if (match === '$$') return '$';
    references++;
    whole = index === 0 && match.length === text.length;
    const resolved = resolveReference(body ?? '', env);
    if ('error' in resolved) {
      errors.push(`${path || '(root)'}: ${resolved.error}`);
      return '';
    }
    if (resolved.unsetName) {
      unset.push({ name: resolved.unsetName, path });
      wholeUnset = index === 0 && match.length === text.length;
    }
    return resolved.value;
  });
  if (wholeUnset) return UNSET_VALUE;
  // A value that is exactly one reference takes the scalar type of what it expands to, as in the
  // collector (`max_poll_events: ${env:N}` is a number); maps and lists are never produced.
  if (references === 1 && whole) return toScalar(out);
  return out;
}

function resolveReference(
  body: string,
  env: Readonly<Record<string, string | undefined>>,
): { value: string; unsetName?: string } | { error: string } {
  let spec = body;
  if (spec.startsWith('file:')) return readFileReference(spec.slice('file:'.length));
  if (spec.startsWith('env:')) spec = spec.slice(4);
  else if (/^[A-Za-z]+:/.test(spec)) {
    return { error: `unsupported config provider in '\${${body.split(':')[0]}:...}'; env and file are available` };
  }
  const sep = spec.indexOf(':-');
  const name = sep === -1 ? spec : spec.slice(0, sep);
  const fallback = sep === -1 ? undefined : spec.slice(sep + 2);
  if (!VAR_NAME.test(name))
    return {
      error: `'\${${body}}' does not name an environment variable (letters, digits and '_', not starting with a digit)`,
    };
  const value = env[name];
  if (value !== undefined && value !== '') return { value };
  if (fallback !== undefined) return { value: fallback };
  return value === undefined ? { value: '', unsetName: name } : { value: '' };
}

/**
 * `${file:path}`: the file's text, without its final line break (the collector parses the file as one
 * YAML value, so `secret\n` is `secret`). A file that cannot be read is an error naming the path, never
 * its content.
 */
function readFileReference(path: string): { value: string } | { error: string } {
  if (path.trim() === '') return { error: "'${file:}' names no file; write ${file:/path/to/file}" };
  try {
    return { value: readFileSync(path, 'utf8').replace(/\r?\n$/, '') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? ' (no such file)' : code ? ` (${code})` : '';
    return { error: `cannot read the file of \${file:${path}}${why}` };
  }
}

function toScalar(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === 'true') return true;
  if (trimmed === 'false') return false;
  if (NUMBER.test(trimmed)) {
    const n = Number(trimmed);
    if (Number.isFinite(n) && (Number.isSafeInteger(n) || !Number.isInteger(n))) return n;
  }
  return text;
}
