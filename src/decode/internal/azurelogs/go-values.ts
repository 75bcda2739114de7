/*
 * Value conversions with the exact acceptance rules of the Go functions the azurelogs translator
 * (pkg/translator/azurelogs in opentelemetry-collector-contrib) calls: strconv.ParseInt / ParseFloat /
 * ParseBool, and its own normalize.go helpers. Where Go errors, these throw GoValueError or return
 * undefined, so a mapping fails exactly where Go's does.
 */

/**
 * A value Go's translator would refuse; the message follows Go's. Thrown per record for input Go refuses,
 * so it captures no stack trace (that is most of an Error's cost, and the message says all there is).
 */
export class GoValueError extends Error {
  override readonly name = 'GoValueError';

  constructor(message: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}

const INT_RE = /^[+-]?\d+$/;
const FLOAT_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const SPECIAL_FLOAT_RE = /^[+-]?(?:inf|infinity|nan)$/i;
const INT64_LIMIT = 2n ** 63n;

/** strconv.ParseInt(s, 10, 64); undefined where Go errors. Beyond 2^53 the number is the nearest double. */
export function parseGoInt(s: string): number | undefined {
  // Fast path: up to 15 digits is always an exact int64 and an exact double.
  const n = s.length;
  if (n > 0 && n <= 15) {
    let i = s.charCodeAt(0) === 0x2d || s.charCodeAt(0) === 0x2b ? 1 : 0;
    if (i === n) return undefined;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x30 || c > 0x39) return undefined;
    }
    return Number(s);
  }
  if (!INT_RE.test(s)) return undefined;
  const big = BigInt(s);
  if (big >= INT64_LIMIT || big < -INT64_LIMIT) return undefined;
  return Number(big);
}

/** strconv.ParseFloat(s, 64) for decimal input; undefined where Go errors. */
export function parseGoFloat(s: string): number | undefined {
  if (FLOAT_RE.test(s)) {
    const n = Number(s);
    return Number.isFinite(n) ? n : undefined; // Go: out of range is an error
  }
  if (SPECIAL_FLOAT_RE.test(s)) {
    const lower = s.toLowerCase();
    if (lower.endsWith('nan')) return Number.NaN;
    return lower.startsWith('-') ? -Infinity : Infinity;
  }
  return undefined;
}

/** strconv.ParseBool; undefined where Go errors. */
export function parseGoBool(s: string): boolean | undefined {
  switch (s) {
    case '1':
    case 't':
    case 'T':
    case 'TRUE':
    case 'true':
    case 'True':
      return true;
    case '0':
    case 'f':
    case 'F':
    case 'FALSE':
    case 'false':
    case 'False':
      return false;
    default:
      return undefined;
  }
}

/** putInt: the parsed integer, or GoValueError like Go's "failed to get number in ..." */
export function requireGoInt(field: string, value: string): number {
  const n = parseGoInt(value);
  if (n === undefined) throw new GoValueError(`failed to get number in "${value}" for field "${field}"`);
  return n;
}

/** handleTime: seconds (as text) to integer milliseconds, truncated toward zero like Go's int64(n * 1e3). */
export function requireGoMillis(field: string, value: string): number {
  const n = parseGoFloat(value);
  if (n === undefined) throw new GoValueError(`failed to get number in "${value}" for field "${field}"`);
  return Math.trunc(n * 1e3);
}

/*
 * normalize.go. A JSON number decoded by Go into `any` is a float64, so a number passes through toInt
 * unchanged (Go writes it as a double); only strings are converted.
 */

/** tryParseFloat64: numbers, and strings strconv.ParseFloat accepts. */
export function tryParseFloat(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return parseGoFloat(value);
  return undefined;
}

export function toGoInt(value: unknown): unknown {
  if (typeof value === 'string') return parseGoInt(value) ?? value;
  return value;
}

export function toGoFloat(value: unknown): unknown {
  if (typeof value === 'string') return parseGoFloat(value) ?? value;
  return value;
}

export function toLower(value: unknown): unknown {
  return typeof value === 'string' ? value.toLowerCase() : value;
}
