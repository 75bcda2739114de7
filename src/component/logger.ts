/** The structured logger every component receives. Fields must never hold secrets. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger whose lines also carry `fields` (e.g. `{ component: 'azure_event_hub/audit' }`). */
  child(fields: Record<string, unknown>): Logger;
}

/** Discards everything; the default when an embedder passes no logger. */
export const noopLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return noopLogger;
  },
};
