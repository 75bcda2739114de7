import { SeverityNumber } from '@opentelemetry/api-logs';

export interface Severity {
  readonly number: SeverityNumber;
  readonly text: string;
}

/** Level names Azure services write (case-insensitive), and common logging-library names. */
const BY_NAME: ReadonlyMap<string, SeverityNumber> = new Map([
  ['verbose', SeverityNumber.DEBUG],
  ['trace', SeverityNumber.TRACE],
  ['debug', SeverityNumber.DEBUG],
  ['informational', SeverityNumber.INFO],
  ['information', SeverityNumber.INFO],
  ['info', SeverityNumber.INFO],
  ['notice', SeverityNumber.INFO2],
  ['warning', SeverityNumber.WARN],
  ['warn', SeverityNumber.WARN],
  ['error', SeverityNumber.ERROR],
  ['err', SeverityNumber.ERROR],
  ['critical', SeverityNumber.FATAL],
  ['fatal', SeverityNumber.FATAL],
  ['alert', SeverityNumber.FATAL2],
  ['emergency', SeverityNumber.FATAL3],
]);

/**
 * Numeric levels follow the Windows event / ETW levels that Azure services inherit (the `Level` column of
 * Azure Monitor tables): 1 Critical, 2 Error, 3 Warning, 4 Informational, 5 Verbose; 0 (LogAlways) has no
 * severity. The Go receiver copies the number into the severity number unchanged (4 becomes TRACE4);
 * we map it, which is what the number means.
 */
const BY_ETW_LEVEL: readonly SeverityNumber[] = [
  SeverityNumber.UNSPECIFIED,
  SeverityNumber.FATAL,
  SeverityNumber.ERROR,
  SeverityNumber.WARN,
  SeverityNumber.INFO,
  SeverityNumber.DEBUG,
];

const MAX_CACHED_LEVELS = 1_000;
/** Level value → Severity, so the usual handful of levels cost one lookup and no allocation per record. */
const cache = new Map<string | number, Severity>();

/** Maps a `level` value to an OpenTelemetry severity; the text is the level as written. Undefined when absent. */
export function parseSeverity(level: unknown): Severity | undefined {
  if (typeof level !== 'string' && typeof level !== 'number') return undefined;
  let severity = cache.get(level);
  if (severity === undefined) {
    severity = computeSeverity(level);
    if (severity === undefined) return undefined;
    if (cache.size < MAX_CACHED_LEVELS) cache.set(level, severity);
  }
  return severity;
}

function computeSeverity(level: string | number): Severity | undefined {
  if (typeof level === 'string') {
    if (level.length === 0) return undefined;
    const named = BY_NAME.get(level.toLowerCase());
    if (named !== undefined) return Object.freeze({ number: named, text: level });
    const c = level.charCodeAt(0);
    if (c >= 48 && c <= 57) {
      const n = Number(level);
      if (Number.isInteger(n)) return Object.freeze({ number: BY_ETW_LEVEL[n] ?? SeverityNumber.UNSPECIFIED, text: level });
    }
    return Object.freeze({ number: SeverityNumber.UNSPECIFIED, text: level });
  }
  const number = (Number.isInteger(level) ? BY_ETW_LEVEL[level] : undefined) ?? SeverityNumber.UNSPECIFIED;
  return Object.freeze({ number, text: String(level) });
}
