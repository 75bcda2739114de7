import type { HrTime } from '@opentelemetry/api';
import { composeHrTime, isRepresentableTime } from './timestamp.ts';

/**
 * User `time_formats`: Go reference-time layouts (`01/02/2006 15:04:05`, as the Go receiver takes them,
 * see https://pkg.go.dev/time#pkg-constants) or strftime patterns (`%m/%d/%Y %H:%M:%S`, recognised by a
 * `%`). A layout is compiled once into one anchored regex plus the list of fields its groups hold.
 */
export type TimeLayoutParser = (value: string) => HrTime | undefined;

type Field =
  | 'year4'
  | 'year2'
  | 'month'
  | 'monthName'
  | 'day'
  | 'yearDay'
  | 'hour24'
  | 'hour12'
  | 'minute'
  | 'second'
  | 'fraction'
  | 'meridiem'
  | 'zone'
  | 'zoneName'
  | 'ignore';

interface Token {
  readonly field?: Field;
  /** Regex source for this token (already escaped for literals). */
  readonly pattern: string;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_LONG = '(?:January|February|March|April|May|June|July|August|September|October|November|December)';
const MONTH_SHORT = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const WEEKDAY_LONG = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const WEEKDAY_SHORT = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const NUMERIC_ZONE = '(Z|[+-]\\d{2}(?::?\\d{2}(?::?\\d{2})?)?)';

function escapeLiteral(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
}

/** Go layout elements, longest first where one is a prefix of another (the order Go's nextStdChunk uses). */
const GO_ELEMENTS: readonly [string, Token][] = [
  ['January', { field: 'monthName', pattern: `(${MONTH_LONG})` }],
  ['Jan', { field: 'monthName', pattern: `(${MONTH_SHORT})` }],
  ['Monday', { pattern: WEEKDAY_LONG }],
  ['Mon', { pattern: WEEKDAY_SHORT }],
  ['MST', { field: 'zoneName', pattern: '([A-Z]{3,5}|[+-]\\d{2,4})' }],
  ['2006', { field: 'year4', pattern: '(\\d{4})' }],
  ['2', { field: 'day', pattern: '(\\d{1,2})' }],
  ['_2', { field: 'day', pattern: ' ?(\\d{1,2})' }],
  ['002', { field: 'yearDay', pattern: '(\\d{3})' }],
  ['01', { field: 'month', pattern: '(\\d{2})' }],
  ['02', { field: 'day', pattern: '(\\d{2})' }],
  ['03', { field: 'hour12', pattern: '(\\d{2})' }],
  ['04', { field: 'minute', pattern: '(\\d{2})' }],
  ['05', { field: 'second', pattern: '(\\d{2})' }],
  ['06', { field: 'year2', pattern: '(\\d{2})' }],
  ['15', { field: 'hour24', pattern: '(\\d{1,2})' }],
  ['1', { field: 'month', pattern: '(\\d{1,2})' }],
  ['3', { field: 'hour12', pattern: '(\\d{1,2})' }],
  ['4', { field: 'minute', pattern: '(\\d{1,2})' }],
  ['5', { field: 'second', pattern: '(\\d{1,2})' }],
  ['PM', { field: 'meridiem', pattern: '(AM|PM)' }],
  ['pm', { field: 'meridiem', pattern: '(am|pm)' }],
  ['Z07:00:00', { field: 'zone', pattern: NUMERIC_ZONE }],
  ['-07:00:00', { field: 'zone', pattern: NUMERIC_ZONE }],
  ['Z070000', { field: 'zone', pattern: NUMERIC_ZONE }],
  ['-070000', { field: 'zone', pattern: NUMERIC_ZONE }],
  ['Z07:00', { field: 'zone', pattern: NUMERIC_ZONE }],
  ['-07:00', { field: 'zone', pattern: NUMERIC_ZONE }],
  ['Z0700', { field: 'zone', pattern: NUMERIC_ZONE }],
  ['-0700', { field: 'zone', pattern: NUMERIC_ZONE }],
  ['Z07', { field: 'zone', pattern: NUMERIC_ZONE }],
  ['-07', { field: 'zone', pattern: NUMERIC_ZONE }],
];

/** Tokenizes a Go layout. Fractions (`.000`, `.999`, `,000`) are handled here because their length varies. */
function tokenizeGo(layout: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  outer: while (i < layout.length) {
    const ch = layout[i]!;
    if ((ch === '.' || ch === ',') && (layout[i + 1] === '0' || layout[i + 1] === '9')) {
      const digit = layout[i + 1]!;
      let j = i + 1;
      while (layout[j] === digit) j++;
      if (j >= layout.length || !/\d/.test(layout[j]!)) {
        const count = j - i - 1;
        // `.000` needs exactly that many digits; `.999` is optional and takes any number (Go's rules).
        tokens.push(
          digit === '0'
            ? { field: 'fraction', pattern: `[.,](\\d{${count}})` }
            : { field: 'fraction', pattern: '(?:[.,](\\d+))?' },
        );
        i = j;
        continue;
      }
    }
    for (const [element, token] of GO_ELEMENTS) {
      if (layout.startsWith(element, i)) {
        // `2006` only as a whole: in Go "2" followed by "006" is the year, "200" alone is not.
        tokens.push(token);
        i += element.length;
        continue outer;
      }
    }
    tokens.push({ pattern: escapeLiteral(ch) });
    i++;
  }
  return tokens;
}

const STRFTIME: Readonly<Record<string, Token>> = {
  Y: { field: 'year4', pattern: '(\\d{4})' },
  y: { field: 'year2', pattern: '(\\d{2})' },
  m: { field: 'month', pattern: '(\\d{1,2})' },
  b: { field: 'monthName', pattern: `(${MONTH_SHORT})` },
  h: { field: 'monthName', pattern: `(${MONTH_SHORT})` },
  B: { field: 'monthName', pattern: `(${MONTH_LONG})` },
  d: { field: 'day', pattern: '(\\d{1,2})' },
  e: { field: 'day', pattern: ' ?(\\d{1,2})' },
  j: { field: 'yearDay', pattern: '(\\d{3})' },
  H: { field: 'hour24', pattern: '(\\d{1,2})' },
  I: { field: 'hour12', pattern: '(\\d{1,2})' },
  M: { field: 'minute', pattern: '(\\d{2})' },
  S: { field: 'second', pattern: '(\\d{2})' },
  f: { field: 'fraction', pattern: '(\\d{1,9})' },
  L: { field: 'fraction', pattern: '(\\d{3})' },
  p: { field: 'meridiem', pattern: '(AM|PM|am|pm)' },
  z: { field: 'zone', pattern: NUMERIC_ZONE },
  Z: { field: 'zoneName', pattern: '([A-Z]{3,5})' },
  a: { pattern: WEEKDAY_SHORT },
  A: { pattern: WEEKDAY_LONG },
  T: { pattern: '' }, // expanded below
  '%': { pattern: '%' },
};

function tokenizeStrftime(layout: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < layout.length; i++) {
    const ch = layout[i]!;
    if (ch !== '%' || i + 1 >= layout.length) {
      tokens.push({ pattern: escapeLiteral(ch) });
      continue;
    }
    const spec = layout[++i]!;
    if (spec === 'T') {
      tokens.push(...tokenizeStrftime('%H:%M:%S'));
      continue;
    }
    const token = STRFTIME[spec];
    if (!token) throw new Error(`unknown strftime directive %${spec} in time format "${layout}"`);
    tokens.push(token);
  }
  return tokens;
}

function zoneOffsetMinutes(zone: string): number {
  if (zone === 'Z' || zone === 'z') return 0;
  const sign = zone[0] === '-' ? -1 : 1;
  const d = zone.replace(/[^\d]/g, '');
  const hh = Number(d.slice(0, 2));
  const mm = d.length >= 4 ? Number(d.slice(2, 4)) : 0;
  return sign * (hh * 60 + mm);
}

/**
 * Compiles one layout. Throws (at configuration time) for a layout with no date or time element at all
 * or an unknown strftime directive, so a typo does not silently match nothing.
 */
export function compileTimeLayout(layout: string): TimeLayoutParser {
  const tokens = layout.includes('%') ? tokenizeStrftime(layout) : tokenizeGo(layout);
  const fields: Field[] = [];
  let source = '^';
  for (let k = 0; k < tokens.length; k++) {
    const token = tokens[k]!;
    source += token.pattern;
    if (token.field) fields.push(token.field);
    // Go accepts a fraction after the seconds even when the layout has none.
    if (token.field === 'second' && tokens[k + 1]?.field !== 'fraction') {
      source += '(?:[.,](\\d+))?';
      fields.push('fraction');
    }
  }
  source += '$';
  if (!fields.some((f) => f !== 'ignore' && f !== 'fraction')) {
    throw new Error(
      `time format "${layout}" has no date or time element (Go layouts use the reference time 2006-01-02 15:04:05)`,
    );
  }
  const regex = new RegExp(source);
  return (value: string) => {
    const m = regex.exec(value);
    if (!m) return undefined;
    let year = 1970;
    let month = 1;
    let day = 1;
    let yearDay = -1;
    let hour = 0;
    let minute = 0;
    let second = 0;
    let nanos = 0;
    let pm: boolean | undefined;
    let offset = 0;
    for (let g = 0; g < fields.length; g++) {
      const text = m[g + 1];
      if (text === undefined) continue;
      switch (fields[g]) {
        case 'year4':
          year = Number(text);
          break;
        case 'year2': {
          const yy = Number(text);
          year = yy >= 69 ? 1900 + yy : 2000 + yy;
          break;
        } // Go's pivot
        case 'month':
          month = Number(text);
          break;
        case 'monthName':
          month = MONTHS.indexOf(text.slice(0, 3).toLowerCase()) + 1;
          break;
        case 'day':
          day = Number(text);
          break;
        case 'yearDay':
          yearDay = Number(text);
          break;
        case 'hour24':
          hour = Number(text);
          break;
        case 'hour12':
          hour = Number(text);
          if (hour < 1 || hour > 12) return undefined;
          break;
        case 'minute':
          minute = Number(text);
          break;
        case 'second':
          second = Number(text);
          break;
        case 'fraction':
          nanos = Math.floor(Number(`0.${text.slice(0, 9)}`) * 1e9 + 1e-6);
          break;
        case 'meridiem':
          pm = text.toUpperCase() === 'PM';
          break;
        case 'zone':
          offset = zoneOffsetMinutes(text);
          break;
        case 'zoneName':
          offset = /^[+-]\d/.test(text) ? zoneOffsetMinutes(text) : 0;
          break; // abbreviations: UTC
        default:
          break;
      }
    }
    if (pm !== undefined) hour = (hour % 12) + (pm ? 12 : 0);
    if (yearDay > 0) {
      const start = composeHrTime(year, 1, 1, hour, minute, second, nanos, offset);
      const time: HrTime | undefined = start ? [start[0] + (yearDay - 1) * 86_400, start[1]] : undefined;
      return time !== undefined && isRepresentableTime(time) ? time : undefined;
    }
    return composeHrTime(year, month, day, hour, minute, second, nanos, offset);
  };
}
