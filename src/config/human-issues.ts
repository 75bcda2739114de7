import type { z } from 'zod';

/**
 * A zod error map that words the library's default messages ("Invalid input: expected string, received
 * undefined") for a person editing YAML: "required", "must be text, not a list", "must be one of azure,
 * raw, json". Passed per parse (`schema.safeParse(input, { error: humanIssueMessage })`), so a message a
 * schema sets itself still wins (zod 4 precedence: schema, then per-parse, then global). Never quotes the
 * input value: it may be a secret.
 */
export function humanIssueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'required';
      return `must be ${noun(issue.expected)}, not ${describe(issue.input)}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${show(issue.values[0])}`
        : `must be one of ${issue.values.map(show).join(', ')}`;
    case 'too_small':
      return bound(issue.origin, 'at least', issue.minimum, issue.inclusive);
    case 'too_big':
      return bound(issue.origin, 'at most', issue.maximum, issue.inclusive);
    case 'invalid_format':
      if (issue.format === 'url') return 'must be a URL, e.g. https://account.blob.core.windows.net';
      return `is not a valid ${issue.format}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'invalid_union': {
      // Every branch wanted another type (`auth: <id> | {type: ...}`, durations "5s" | 1000): list them.
      const expected = new Set<string>();
      for (const sub of issue.errors.flat()) if (sub.code === 'invalid_type') expected.add(noun(sub.expected));
      if (expected.size > 0 && issue.input !== undefined) {
        return `must be ${[...expected].join(' or ')}, not ${describe(issue.input)}`;
      }
      return issue.input === undefined ? 'required' : 'is not any of the accepted forms; see docs/configuration.md';
    }
    case 'invalid_key':
      return 'has a key that is not allowed here';
    case 'invalid_element':
      return 'has an entry that is not valid';
    default:
      return undefined;
  }
}

function noun(type: string): string {
  const names: Record<string, string> = {
    string: 'text',
    number: 'a number',
    int: 'a whole number',
    boolean: 'true or false',
    array: 'a list',
    object: 'a map (key: value lines)',
    record: 'a map (key: value lines)',
    null: 'empty',
  };
  return names[type] ?? type;
}

function describe(input: unknown): string {
  if (input === null) return 'empty (null)';
  if (Array.isArray(input)) return 'a list';
  switch (typeof input) {
    case 'string':
      return 'text';
    case 'number':
      return Number.isInteger(input) ? 'a whole number' : 'a number';
    case 'boolean':
      return 'true/false';
    case 'object':
      return 'a map';
    default:
      return typeof input;
  }
}

/** Enum and literal values are the schema's own words, not user input, so they can be shown. */
function show(value: unknown): string {
  if (value === '') return '"" (empty)';
  return typeof value === 'string' ? value : String(value);
}

function bound(origin: string, word: string, limit: unknown, inclusive: boolean | undefined): string {
  const n = Number(limit);
  if (origin === 'string') {
    if (word === 'at least' && n === 1) return 'must not be empty';
    return `must have ${word} ${n} characters`;
  }
  if (origin === 'array' || origin === 'set') return `must have ${word} ${n} entr${n === 1 ? 'y' : 'ies'}`;
  if (inclusive === false) return `must be ${word === 'at least' ? 'greater' : 'less'} than ${String(limit)}`;
  return `must be ${word} ${String(limit)}`;
}
