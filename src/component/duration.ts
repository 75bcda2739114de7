import { z } from 'zod';
import { quoteValue } from './redact.ts';

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;

/**
 * Parses a Go-style duration ("5s", "1m30s", "250ms", "1.5h") into milliseconds, as collector configs
 * write them. A plain number is taken as milliseconds. Returns undefined when it does not parse.
 */
export function parseDurationMs(input: string | number): number | undefined {
  if (typeof input === 'number') return Number.isFinite(input) && input >= 0 ? input : undefined;
  const text = input.trim();
  if (text === '0') return 0;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  let total = 0;
  PART.lastIndex = 0;
  let matched = 0;
  while (PART.lastIndex < text.length) {
    const start = PART.lastIndex;
    const m = PART.exec(text);
    if (!m || m.index !== start) return undefined;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    matched++;
  }
  return matched > 0 ? total : undefined;
}

/** Formats milliseconds as a short Go-style duration for messages ("1m30s", "250ms"). */
export function formatDurationMs(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
}

/** A zod type for a duration in config: Go-style string or milliseconds; yields milliseconds. */
export const durationMs = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const ms = parseDurationMs(value);
  if (ms === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `${quoteValue(String(value))} is not a duration; write it like "5s", "1m30s" or "250ms"`,
    });
    return z.NEVER;
  }
  return ms;
});
