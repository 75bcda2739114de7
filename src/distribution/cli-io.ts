import type { Components } from './components.ts';

/** What a command reads and writes; the real process by default, captured in tests. */
export interface CliIo {
  /** One line (or block) of normal output; a newline is appended. */
  readonly out: (text: string) => void;
  /** One line (or block) of diagnostics; a newline is appended. */
  readonly err: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Factories to use. Default the built-in ones. */
  readonly components?: Components;
  /** Where SIGTERM/SIGINT arrive. Default process. */
  readonly signals?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
}

export function processIo(): CliIo {
  return {
    out: (text) => void process.stdout.write(`${text}\n`),
    err: (text) => void process.stderr.write(`${text}\n`),
    env: process.env,
  };
}
