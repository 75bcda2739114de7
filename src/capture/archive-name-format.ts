/**
 * Capture's blob names (the `archiveNameFormat` of the service's destination): a path built from tokens,
 * by default `{Namespace}/{EventHub}/{PartitionId}/{Year}/{Month}/{Day}/{Hour}/{Minute}/{Second}`, plus
 * `.avro`. The service requires every token in a custom format, in any order, with `/` between
 * path segments; the time is the UTC time the file's window started.
 */
export const DEFAULT_ARCHIVE_NAME_FORMAT =
  '{Namespace}/{EventHub}/{PartitionId}/{Year}/{Month}/{Day}/{Hour}/{Minute}/{Second}';

export const ARCHIVE_NAME_TOKENS = [
  'Namespace',
  'EventHub',
  'PartitionId',
  'Year',
  'Month',
  'Day',
  'Hour',
  'Minute',
  'Second',
] as const;
type Token = (typeof ARCHIVE_NAME_TOKENS)[number];

const TOKEN_PATTERN = /\{([A-Za-z]+)\}/g;

/** Why a format cannot be used (a sentence), or undefined when it can. */
export function archiveNameFormatProblem(format: string): string | undefined {
  const seen = new Map<string, number>();
  for (const m of format.matchAll(TOKEN_PATTERN)) seen.set(m[1]!, (seen.get(m[1]!) ?? 0) + 1);
  const unknown = [...seen.keys()].filter((t) => !(ARCHIVE_NAME_TOKENS as readonly string[]).includes(t));
  if (unknown.length > 0)
    return (
      `unknown token ${unknown.map((t) => `{${t}}`).join(', ')}; the tokens are ` +
      `${ARCHIVE_NAME_TOKENS.map((t) => `{${t}}`).join(', ')}`
    );
  const missing = ARCHIVE_NAME_TOKENS.filter((t) => !seen.has(t));
  if (missing.length > 0)
    return `must contain every token, as the service requires; missing ${missing.map((t) => `{${t}}`).join(', ')}`;
  const twice = [...seen].filter(([, n]) => n > 1).map(([t]) => `{${t}}`);
  if (twice.length > 0) return `each token may appear once; repeated ${twice.join(', ')}`;
  if (format.startsWith('/') || format.endsWith('/') || format.includes('//'))
    return 'must not start or end with "/" nor hold an empty segment';
  return undefined;
}

export interface ArchiveNameParts {
  readonly namespace: string;
  readonly eventHub: string;
  readonly partitionId: string;
  /** The window's start (UTC, whole seconds are kept). */
  readonly time: Date;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function tokenValues(p: ArchiveNameParts): Record<Token, string> {
  const t = p.time;
  return {
    Namespace: p.namespace,
    EventHub: p.eventHub,
    PartitionId: p.partitionId,
    Year: pad(t.getUTCFullYear(), 4),
    Month: pad(t.getUTCMonth() + 1),
    Day: pad(t.getUTCDate()),
    Hour: pad(t.getUTCHours()),
    Minute: pad(t.getUTCMinutes()),
    Second: pad(t.getUTCSeconds()),
  };
}

/** The blob name of one capture file (with the `.avro` extension the service adds). */
export function archiveBlobName(format: string, parts: ArchiveNameParts): string {
  const values = tokenValues(parts);
  return `${format.replace(TOKEN_PATTERN, (_, t: string) => values[t as Token])}.avro`;
}

/**
 * Finds one partition's capture files among blob names: the listing prefix (the format's literal start
 * with namespace and hub filled in, up to the first other token) and a matcher that returns the window
 * time of a name of this partition, or undefined for any other blob.
 */
export class ArchiveNameMatcher {
  readonly prefix: string;
  readonly #regex: RegExp;
  readonly #order: Token[] = [];

  constructor(
    format: string,
    namespace: string,
    eventHub: string,
    readonly partitionId: string,
  ) {
    const known: Partial<Record<Token, string>> = {
      Namespace: namespace,
      EventHub: eventHub,
      PartitionId: partitionId,
    };
    let prefix = '';
    let open = true;
    let source = '^';
    let last = 0;
    for (const m of format.matchAll(TOKEN_PATTERN)) {
      const literal = format.slice(last, m.index);
      last = m.index! + m[0].length;
      source += escapeRegExp(literal);
      if (open) prefix += literal;
      const token = m[1] as Token;
      const fixed = known[token];
      if (fixed !== undefined) {
        source += escapeRegExp(fixed);
        if (open) prefix += fixed;
      } else {
        open = false;
        source += token === 'Year' ? '(\\d{4})' : '(\\d{2})';
        this.#order.push(token);
      }
    }
    source += `${escapeRegExp(format.slice(last))}\\.avro$`;
    this.prefix = open ? prefix + format.slice(last) : prefix;
    this.#regex = new RegExp(source);
  }

  /** The window start encoded in `name`, when it is a capture file of this partition. */
  match(name: string): Date | undefined {
    const m = this.#regex.exec(name);
    if (!m) return undefined;
    const v: Partial<Record<Token, number>> = {};
    this.#order.forEach((token, i) => (v[token] = Number(m[i + 1])));
    return new Date(Date.UTC(v.Year!, v.Month! - 1, v.Day!, v.Hour!, v.Minute!, v.Second!));
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
