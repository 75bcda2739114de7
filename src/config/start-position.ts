import { z } from 'zod';
import { parseDurationMs } from '../component/duration.ts';
import { quoteValue } from '../component/redact.ts';

/**
 * `start_position` as parsed from the config, once, when it is validated. A look-back stays relative:
 * it becomes a time only when a partition opens (`resolveStartPosition` in src/receiver/start-position.ts).
 */
export type StartPositionSetting =
  | { readonly kind: 'latest' }
  | { readonly kind: 'earliest' }
  /** An RFC 3339 time: events enqueued after it. */
  | { readonly kind: 'enqueuedTime'; readonly enqueuedTime: Date }
  /** A look-back duration ("1h"): events enqueued after now minus `lookBackMs`. */
  | { readonly kind: 'lookBack'; readonly lookBackMs: number };

/** The outcome of `parseStartPositionSetting`: the setting, or what is wrong and what to write instead. */
export type StartPositionParse =
  | { readonly ok: true; readonly value: StartPositionSetting }
  | { readonly ok: false; readonly message: string };

// RFC 3339 date-time (section 5.6): date, `T` (or `t`, or a space, which the RFC allows), time with
// optional fraction, then `Z` or a numeric offset. Captures are checked for ranges below.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

const EXPECTED = 'latest, earliest, an RFC 3339 time (2026-01-02T15:04:05Z) or a look-back duration (1h, 90m)';

/**
 * Parses `start_position`: `latest` (also empty), `earliest` (any case), an RFC 3339 time with a zone,
 * or a look-back duration with a unit ("1h" = events of the last hour). The one parser of this setting,
 * used by the config schema; the message never quotes a long or secret-looking value.
 */
export function parseStartPositionSetting(text: string): StartPositionParse {
  const value = text.trim();
  const lower = value.toLowerCase();
  if (lower === '' || lower === 'latest') return { ok: true, value: { kind: 'latest' } };
  if (lower === 'earliest') return { ok: true, value: { kind: 'earliest' } };
  const shown = quoteValue(value);
  if (/^\d+(\.\d+)?$/.test(value)) {
    const units = `"${value}s", "${value}m" or "${value}h"`;
    return { ok: false, message: `${shown} needs a unit to be a look-back duration: write ${units}` };
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) return parseTime(value, shown);
  const lookBack = parseDurationMs(value);
  if (lookBack !== undefined) return { ok: true, value: { kind: 'lookBack', lookBackMs: lookBack } };
  return { ok: false, message: `${shown} is not ${EXPECTED}` };
}

function parseTime(value: string, shown: string): StartPositionParse {
  const m = RFC3339.exec(value);
  if (!m) {
    const zoneless = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(value);
    const zone = zoneless ? '; add a time zone (Z or +01:00)' : '';
    return { ok: false, message: `${shown} is not an RFC 3339 time like 2026-01-02T15:04:05Z${zone}` };
  }
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map(Number);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const offsetOk = m[9] === undefined || (Number(m[9]) <= 23 && Number(m[10]) <= 59);
  // Second 60 is a leap second in RFC 3339; Date has none, so it is refused rather than silently moved.
  const inRange =
    month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59;
  if (!inRange || !offsetOk) {
    return {
      ok: false,
      message: `${shown} is not a valid date and time (check month, day, hour, minute, second, zone)`,
    };
  }
  return { ok: true, value: { kind: 'enqueuedTime', enqueuedTime: new Date(value.replace(' ', 'T').toUpperCase()) } };
}

/** The zod type of `start_position`: a string in YAML, a `StartPositionSetting` once parsed. Default latest. */
export const startPositionSchema = z
  .string()
  .default('latest')
  .transform((text, ctx): StartPositionSetting => {
    const parsed = parseStartPositionSetting(text);
    if (parsed.ok) return parsed.value;
    ctx.addIssue({ code: 'custom', message: parsed.message });
    return z.NEVER;
  });
