import type { z } from 'zod';
import { humanIssueMessage } from './human-issues.ts';

/** Passes of coercion tried before the remaining issues are reported. Each pass fixes every coercible issue it sees. */
const MAX_COERCION_PASSES = 4;

/**
 * `schema.safeParse` with the collector's weak typing (mapstructure's WeaklyTypedInput): where the
 * schema wants a string and the YAML gave a number or boolean (`partition: 0`, or `${env:P}` holding
 * "0"), the value is taken as its text; where it wants a number or boolean and got a numeric or
 * `true`/`false` string, the value is converted. Anything else is reported as the schema says.
 */
export function weakParse<T>(schema: z.ZodType<T>, input: unknown): ReturnType<z.ZodType<T>['safeParse']> {
  let current: unknown = structuredClone(input);
  let result = schema.safeParse(current, { error: humanIssueMessage });
  for (let pass = 0; pass < MAX_COERCION_PASSES && !result.success; pass++) {
    let changed = false;
    for (const issue of result.error.issues) {
      if (issue.code !== 'invalid_type') continue;
      const found = lookup(current, issue.path);
      if (!found) continue;
      const coerced = coerce(found.value, issue.expected);
      if (coerced === undefined) continue;
      if (issue.path.length === 0) current = coerced;
      else found.parent[found.key as string] = coerced;
      changed = true;
    }
    if (!changed) break;
    result = schema.safeParse(current, { error: humanIssueMessage });
  }
  return result;
}

function coerce(value: unknown, expected: string): unknown {
  if (expected === 'string' && (typeof value === 'number' || typeof value === 'boolean')) return String(value);
  if (expected === 'number' && typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  if (expected === 'boolean' && typeof value === 'string' && /^(true|false)$/i.test(value.trim()))
    return value.trim().toLowerCase() === 'true';
  return undefined;
}

function lookup(
  root: unknown,
  path: readonly PropertyKey[],
): { parent: Record<string, unknown>; key: PropertyKey; value: unknown } | undefined {
  if (path.length === 0) return { parent: {}, key: '', value: root };
  let node: unknown = root;
  for (const segment of path.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[segment as string];
  }
  if (node === null || typeof node !== 'object') return undefined;
  const key = path[path.length - 1]!;
  return { parent: node as Record<string, unknown>, key, value: (node as Record<string, unknown>)[key as string] };
}
