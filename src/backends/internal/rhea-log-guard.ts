/**
 * rhea (the AMQP stack under both backends: the SDK's and our streaming one) logs through the `debug`
 * package on every frame and transfer (`log.frames(...)`, `log.events(...)`, `log.raw(...)`). A `debug`
 * logger takes its arguments as a rest parameter, so every call allocates an array even when the logger is
 * off, which is nearly always: about 0.6 KB per delivered event, 9 % of everything the pipeline thread
 * allocated in a streaming drain (a sampling allocation profile, 2026-11-28), all of it garbage to collect.
 *
 * So does rhea-promise, on every delivery it hands on. `guardRheaLogs()` puts a guard in front of each of
 * their loggers, once per process: with up to
 * MAX_LOG_ARGUMENTS named parameters it allocates nothing, and it calls the logger only when that logger is
 * enabled (`DEBUG=rhea*`, or `debug.enable()` at any time), with the arguments it was given (but trailing
 * undefined ones). Both read their loggers from their log module's exports at each call, so the guards take
 * effect for every connection in the process.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * The log modules of rhea and of rhea-promise (the SDK's layer over it, which logs each delivery as it
 * translates rhea's event): their exports are the `debug` loggers, read by the callers at each call.
 */
const LOG_MODULES = ['rhea/lib/log.js', 'rhea-promise/dist/lib/log.js'];

/** Most arguments any rhea or rhea-promise log call passes (6), with room. */
export const MAX_LOG_ARGUMENTS = 10;

type DebugLogger = ((...args: unknown[]) => void) & { readonly enabled: boolean | undefined };
type Guarded = ((...args: unknown[]) => void) & { readonly guarded?: DebugLogger };

let guarded = false;

/** Guards rhea's loggers (see above). Idempotent; does nothing when rhea's log module is not what it expects. */
export function guardRheaLogs(): void {
  if (guarded) return;
  guarded = true;
  for (const path of LOG_MODULES) {
    let log: Record<string, unknown>;
    try {
      log = require(path) as Record<string, unknown>;
    } catch {
      continue;
    }
    guardLoggersOf(log);
  }
}

function guardLoggersOf(log: Record<string, unknown>): void {
  for (const name of Object.keys(log)) {
    const logger = log[name];
    // A `debug` logger has an `enabled` accessor (undefined, not false, while DEBUG is unset).
    if (typeof logger !== 'function' || !('enabled' in logger)) continue;
    log[name] = guard(logger as DebugLogger);
  }
}

/** The logger behind a guard (for tests); undefined for anything else. */
export function guardedLogger(fn: unknown): DebugLogger | undefined {
  return typeof fn === 'function' ? (fn as Guarded).guarded : undefined;
}

function guard(logger: DebugLogger): Guarded {
  const g = function rheaLog(
    a?: unknown,
    b?: unknown,
    c?: unknown,
    d?: unknown,
    e?: unknown,
    f?: unknown,
    h?: unknown,
    i?: unknown,
    j?: unknown,
    k?: unknown,
  ): void {
    if (!logger.enabled) return;
    // Reading `arguments` would allocate on every call too: trailing undefined arguments are left out
    // (a format's last `%s` of an undefined value then prints as `%s`; this is debug output only).
    const args = [a, b, c, d, e, f, h, i, j, k];
    let n = args.length;
    while (n > 0 && args[n - 1] === undefined) n--;
    logger(...args.slice(0, n));
  };
  Object.defineProperty(g, 'guarded', { value: logger });
  return g;
}
