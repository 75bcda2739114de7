/**
 * `properties` that arrive as a JSON string rather than an object: App Service HTTP logs, Event Hubs
 * `EventProperties`, and Function App logs, whose string holds single-quoted pseudo-JSON
 * (`"properties": "{'appName':'fn','level':'Information'}"`). Returns the object the string holds, or
 * undefined when it holds none (plain text, an array, a number, or JSON that no repair makes valid).
 */
export function parsePropertiesString(text: string): Record<string, unknown> | undefined {
  if (!startsLikeObject(text)) return undefined;
  const direct = parseObject(text);
  if (direct !== undefined) return direct;
  // The Go azure_encoding extension repairs the string as its JSON source text (escapes included), so the
  // repair runs on the re-escaped form of the decoded string (the event's own bytes for the escapes Azure
  // writes), then that is parsed as a JSON string body. Repairing the unescaped text instead breaks on the first
  // escape inside a value (a newline in a stack trace, a Windows path). Every format uses this one function.
  const escaped = JSON.stringify(text).slice(1, -1);
  return parseObject(repairSingleQuotedJson(escaped));
}

function startsLikeObject(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    return c === 0x7b; // '{'
  }
  return false;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Rewrites single-quoted JSON source into double-quoted JSON, the way the Go azure_encoding extension
 * does (convertInvalidSingleQuotedJSON in extension/encoding/azureencodingextension, logs helpers.go):
 * a quote not preceded by a backslash opens a string when none is open and closes the string it opened;
 * either kind is written as `"`; `\'` inside a string becomes `'` (kept as `\\'` when doubly escaped);
 * a `"` that does not close the open string is escaped.
 */
export function repairSingleQuotedJson(data: string): string {
  const n = data.length;
  if (n === 0) return data;
  let out = '';
  let inQuote = 0;
  for (let i = 0; i < n; i++) {
    const c = data.charCodeAt(i);
    const quote = c === 0x27 || c === 0x22;
    const escaped = i > 0 && data.charCodeAt(i - 1) === 0x5c;
    if (quote && !escaped && inQuote === 0) {
      inQuote = c;
      out += '"';
      continue;
    }
    if (quote && !escaped && inQuote === c) {
      inQuote = 0;
      out += '"';
      continue;
    }
    if (c === 0x5c && i !== n - 1 && data.charCodeAt(i + 1) === 0x27 && inQuote !== 0) {
      if (i === 0 || data.charCodeAt(i - 1) !== 0x5c) continue;
    }
    if (c === 0x22 && inQuote !== c && i !== 0 && !escaped) {
      out += '\\"';
      continue;
    }
    out += data[i];
  }
  return out;
}
