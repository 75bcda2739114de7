/**
 * A child process of a fleet test that reports on stdout, one line per happening, and reads partitions:
 * the parts every such child shares (spawn, line splitting, the tail of stderr, graceful stop and crash).
 * Subclasses parse their own lines in `onLine` and keep `owned` up to date.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export abstract class LineChild {
  readonly name: string;
  readonly child: ChildProcess;
  /** Partitions this child reads now. */
  readonly owned = new Set<string>();
  readonly exited: Promise<number | null>;
  #buffer = '';
  #stderr = '';

  constructor(name: string, command: string, args: string[], env: NodeJS.ProcessEnv) {
    this.name = name;
    this.child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (chunk: Buffer) => this.#onData(chunk));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.#stderr = (this.#stderr + chunk.toString()).slice(-4000)));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  /** The last 4000 characters the child wrote to stderr. */
  get stderr(): string {
    return this.#stderr;
  }

  /** One complete stdout line, without its newline. */
  protected abstract onLine(line: string): void;

  #onData(chunk: Buffer): void {
    this.#buffer += chunk.toString();
    let nl: number;
    while ((nl = this.#buffer.indexOf('\n')) >= 0) {
      const line = this.#buffer.slice(0, nl);
      this.#buffer = this.#buffer.slice(nl + 1);
      this.onLine(line);
    }
  }

  /** Graceful stop (SIGTERM); resolves with the exit code. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }

  /** A crash: SIGKILL, nothing released. */
  async crash(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
    this.owned.clear();
  }
}
