import { SeverityNumber } from '@opentelemetry/api-logs';

export interface Severity {
  readonly number: SeverityNumber;
  readonly text: string;
}

/*
 * The default mode's severity: the Go receiver's rule (pkg/translator/azure, asSeverity). Exactly four level
 * names are known, case-sensitive; any other level that is a positive base-10 integer becomes that severity
 * number unchanged (a `Level: 4` is TRACE4, not INFO); anything else has no severity number. The text is the
 * level as written.
 */
/**
 * The level names every Go Azure component knows, case-sensitive: asSeverity of pkg/translator/azure and of
 * pkg/translator/azurelogs (which also knows `Information`), and the azure_encoding extension.
 */
export const GO_LEVEL_NAMES: ReadonlyMap<string, SeverityNumber> = new Map([
  ['Informational', SeverityNumber.INFO],
  ['Warning', SeverityNumber.WARN],
  ['Error', SeverityNumber.ERROR],
  ['Critical', SeverityNumber.FATAL],
]);

/** The largest severity number OTLP defines; Go would copy a larger level too (an invalid enum value). */
const MAX_SEVERITY_NUMBER = SeverityNumber.FATAL4;
const INTEGER = /^[+-]?[0-9]+$/;
const MAX_CACHED_LEVELS = 1_000;
const cache = new Map<string | number, Severity>();

/** Severity of a `level` / `Level` value under the Go receiver's rule; undefined for anything but text or a number. */
export function goSeverity(level: unknown): Severity | undefined {
  if (typeof level !== 'string' && typeof level !== 'number') return undefined;
  let severity = cache.get(level);
  if (severity === undefined) {
    const text = String(level);
    let number = GO_LEVEL_NAMES.get(text);
    if (number === undefined) {
      const n = INTEGER.test(text) ? Number(text) : 0;
      number = n > 0 && n <= MAX_SEVERITY_NUMBER ? (n as SeverityNumber) : SeverityNumber.UNSPECIFIED;
    }
    severity = Object.freeze({ number, text });
    if (cache.size < MAX_CACHED_LEVELS) cache.set(level, severity);
  }
  return severity;
}
