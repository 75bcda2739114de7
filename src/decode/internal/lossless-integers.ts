/**
 * Integers a double cannot hold exactly. JSON.parse reads every number as a double, so an integer literal
 * beyond 2^53 - 1 in an event (`9007199254740993`, a 64-bit ID) would reach the wire with other digits
 * (`9007199254740992`). Such a literal is rewritten to a JSON string before parsing, so its digits travel
 * exactly as a string value. A literal outside int64 stays a number: it becomes a double, as OTLP's
 * int_value cannot hold it (docs/formats.md, "Numbers").
 */

/** 16 digits in a row: the shortest run that can hold an integer beyond 2^53 - 1 (9007199254740991). */
const LONG_DIGIT_RUN = /\d{16}/;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Index of the quote that closes the string whose opening quote is at `open`; -1 when unterminated. */
function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at !== -1) {
    let backslashes = 0;
    for (let i = at - 1; text.charCodeAt(i) === 92; i--) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

/** Whether the integer literal (optional minus, digits) is beyond 2^53 - 1 in magnitude but inside int64. */
function unsafeInt64(literal: string): boolean {
  if (Number.isSafeInteger(Number(literal))) return false;
  const value = BigInt(literal);
  return value >= INT64_MIN && value <= INT64_MAX;
}

/**
 * The JSON text with every integer literal outside ±(2^53 - 1) but inside int64 put in quotes; the text
 * itself when there is none. Literals with a fraction or exponent are doubles already and stay as they
 * are; digits inside strings are skipped. Linear; only texts holding 16 digits in a row are walked.
 */
export function quoteUnsafeIntegers(text: string): string {
  if (!LONG_DIGIT_RUN.test(text)) return text;
  let out = '';
  let copied = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const close = closingQuote(text, i);
      if (close === -1) break; // not JSON: JSON.parse will say so
      i = close + 1;
      continue;
    }
    if (c !== 45 && !isDigit(c)) {
      i++;
      continue;
    }
    const start = i;
    if (c === 45) i++;
    const digitsStart = i;
    while (i < n && isDigit(text.charCodeAt(i))) i++;
    const digitCount = i - digitsStart;
    const next = text.charCodeAt(i);
    if (next === 46 || next === 101 || next === 69) {
      // . e E: a double literal; skip the rest of it
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (!isDigit(d) && d !== 43 && d !== 45 && d !== 101 && d !== 69) break;
        i++;
      }
      continue;
    }
    if (digitCount >= 16 && unsafeInt64(text.slice(start, i))) {
      out += `${text.slice(copied, start)}"${text.slice(start, i)}"`;
      copied = i;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** Nesting past which the walk stops and answers "maybe" (the text is then walked instead, linearly). */
const MAX_WALK_DEPTH = 100;

/**
 * Whether a parsed value holds a number beyond ±(2^53 - 1): the only values whose literal may have lost
 * digits. Walking the parsed value measured 3× cheaper than scanning the text for long digit runs.
 */
function mayHaveLostDigits(value: unknown): boolean {
  if (typeof value === 'object') return value !== null && containerMayHaveLostDigits(value, 0);
  return typeof value === 'number' && Math.abs(value) > MAX_SAFE;
}

function containerMayHaveLostDigits(container: object, depth: number): boolean {
  if (depth > MAX_WALK_DEPTH) return true;
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length; i++) {
      const v: unknown = container[i];
      if (typeof v === 'object') {
        if (v !== null && containerMayHaveLostDigits(v, depth + 1)) return true;
      } else if (typeof v === 'number' && Math.abs(v) > MAX_SAFE) return true;
    }
    return false;
  }
  for (const key in container) {
    const v = (container as Record<string, unknown>)[key];
    if (typeof v === 'object') {
      if (v !== null && containerMayHaveLostDigits(v, depth + 1)) return true;
    } else if (typeof v === 'number' && Math.abs(v) > MAX_SAFE) return true;
  }
  return false;
}

/**
 * JSON.parse that keeps the digits of integers beyond 2^53 inside int64 (as strings, see
 * quoteUnsafeIntegers). Throws like JSON.parse. The text is parsed once more only when the first parse
 * produced a number beyond 2^53 - 1 (rare), so ordinary events pay one walk of the parsed value.
 */
export function parseJsonLossless(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return mayHaveLostDigits(value) ? JSON.parse(quoteUnsafeIntegers(text)) : value;
}
