import type { Logger } from '../component/logger.ts';
import { redact, redactError } from '../component/redact.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogEncoding = 'json' | 'console';

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface JsonLoggerOptions {
  /** Lowest level written. Default info. */
  readonly level?: LogLevel;
  /**
   * `json`: one object per line (`level`, `ts`, `msg`, then fields); `console`: `ts LEVEL msg {fields}`. Default json.
   */
  readonly encoding?: LogEncoding;
  /** Where lines go, each ending with a newline. Default process.stderr. */
  readonly write?: (line: string) => void;
  /** Clock, replaceable in tests. Default Date.now. */
  readonly now?: () => number;
}

/**
 * The distribution's structured logger: one JSON object per line with `level`, `ts` (RFC 3339 with
 * milliseconds), `msg` and the fields, as the collector's zap logger writes them. Every line is passed
 * through `redact` after serialisation, so a connection string that slips into a message or a field
 * (an SDK error quoting it, say) still leaves as `SharedAccessKey=***`. Errors in fields are written as
 * their name and message.
 */
export function createJsonLogger(options: JsonLoggerOptions = {}): Logger {
  const min = LEVEL_RANK[options.level ?? 'info'];
  const encoding = options.encoding ?? 'json';
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const now = options.now ?? Date.now;

  const make = (bound: Record<string, unknown>): Logger => {
    const log = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
      if (LEVEL_RANK[level] < min) return;
      const ts = new Date(now()).toISOString();
      const all = { ...bound, ...fields };
      let line: string;
      if (encoding === 'json') {
        line = safeStringify({ level, ts, msg, ...all });
      } else {
        const rest = Object.keys(all).length > 0 ? `\t${safeStringify(all)}` : '';
        line = `${ts}\t${level}\t${msg}${rest}`;
      }
      write(`${redact(line)}\n`);
    };
    return {
      debug: (m, f) => log('debug', m, f),
      info: (m, f) => log('info', m, f),
      warn: (m, f) => log('warn', m, f),
      error: (m, f) => log('error', m, f),
      child: (fields) => make({ ...bound, ...fields }),
    };
  };
  return make({});
}

/** JSON.stringify that writes errors, bigints and cycles instead of throwing or dropping them. */
function safeStringify(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Error) return redactError(v);
    if (typeof v === 'bigint') return v.toString();
    if (v !== null && typeof v === 'object') {
      if (seen.has(v)) return '[circular]';
      seen.add(v);
    }
    return v;
  });
}
