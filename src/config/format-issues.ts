import type { z } from 'zod';

/** Joins a zod issue path into the collector's dotted form: `receivers.azure_event_hub.ownership.lease_duration`. */
function dottedPath(prefix: readonly (string | number)[], path: readonly PropertyKey[]): string {
  return [...prefix, ...path].map(String).join('.');
}

/**
 * One line per problem, `path: message`, every problem at once. Unknown keys get one line each, with a
 * "did you mean" suggestion when a known key is close. Never echoes input values (they may be secrets).
 */
export function formatIssues(
  error: z.ZodError,
  prefix: readonly (string | number)[] = [],
  knownKeys?: (path: readonly PropertyKey[]) => readonly string[],
): string[] {
  const lines: string[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const known = knownKeys?.(issue.path) ?? [];
        const hint = suggest(key, known);
        lines.push(
          `${dottedPath(prefix, [...issue.path, key])}: unknown key${hint ? `; did you mean \`${hint}\`?` : ''}`,
        );
      }
      continue;
    }
    lines.push(`${dottedPath(prefix, issue.path)}: ${issue.message}`);
  }
  return lines;
}

/** The known key closest to `key` by edit distance, when close enough to be a likely typo. */
export function suggest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  if (best !== undefined && bestDistance <= Math.max(2, Math.floor(best.length / 3))) return best;
  return suggestByPrefix(key, known);
}

/**
 * A known key that the written key is a prefix of (or the reverse), for shortened names such as
 * `container` for `container_name`, which are too far apart by edit distance. At least 4 characters.
 */
function suggestByPrefix(key: string, known: readonly string[]): string | undefined {
  const k = key.toLowerCase();
  if (k.length < 4) return undefined;
  return known.find((c) => {
    const lc = c.toLowerCase();
    return lc.length >= 4 && (lc.startsWith(k) || k.startsWith(lc));
  });
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}
