import { mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';

export interface RotationOptions {
  /** Rotate before a write would make the file larger than this. 0 = never rotate. Unit bytes. */
  readonly maxBytes: number;
  /** Rotated files kept; older ones are deleted. 0 = keep all. */
  readonly maxBackups: number;
  /** Rotated files older than this are deleted. 0 = no age limit. Unit days. */
  readonly maxDays: number;
  /** Name backups with local time instead of UTC. */
  readonly localTime: boolean;
}

export interface RotatingFileWriterOptions {
  readonly rotation?: RotationOptions;
  /** fsync after every append before it resolves (true), or resolve once the OS took the bytes (false). */
  readonly sync: boolean;
}

const DAY_MS = 86_400_000;

/**
 * An append-only file that rotates by size the way the collector's file exporter (lumberjack) does:
 * the full file is renamed `<name>-<yyyy-mm-ddThh-mm-ss.mmm><ext>` and a new one started; old backups
 * are pruned by count and age. Appends are serialized; each resolves only after its bytes were written
 * (and fsync'ed when `sync`).
 */
export class RotatingFileWriter {
  readonly path: string;
  readonly #options: RotatingFileWriterOptions;
  #handle: FileHandle | undefined;
  #size = 0;
  #chain: Promise<void> = Promise.resolve();
  #closed = false;
  #lastStampMs = 0;

  constructor(path: string, options: RotatingFileWriterOptions) {
    this.path = path;
    this.#options = options;
  }

  append(data: Uint8Array): Promise<void> {
    if (this.#closed) return Promise.reject(new Error(`file ${this.path} is closed`));
    const next = this.#chain.catch(() => {}).then(() => this.#write(data));
    this.#chain = next;
    return next;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#chain.catch(() => {});
    await this.#handle?.close();
    this.#handle = undefined;
  }

  async #write(data: Uint8Array): Promise<void> {
    const rotation = this.#options.rotation;
    let handle = await this.#open();
    if (rotation && rotation.maxBytes > 0 && this.#size > 0 && this.#size + data.byteLength > rotation.maxBytes) {
      await this.#rotate(rotation);
      handle = await this.#open();
    }
    try {
      await handle.write(data);
      this.#size += data.byteLength;
      if (this.#options.sync) await handle.sync();
    } catch (error) {
      // Drop the handle so the next append reopens (and re-reads the size) instead of reusing a bad one.
      this.#handle = undefined;
      await handle.close().catch(() => {});
      throw error;
    }
  }

  async #open(): Promise<FileHandle> {
    if (this.#handle) return this.#handle;
    await mkdir(dirname(this.path), { recursive: true });
    const handle = await open(this.path, 'a', 0o640);
    this.#size = (await handle.stat()).size;
    this.#handle = handle;
    return handle;
  }

  async #rotate(rotation: RotationOptions): Promise<void> {
    await this.#handle?.close();
    this.#handle = undefined;
    const ext = extname(this.path);
    const stem = basename(this.path, ext);
    // Two rotations within one millisecond would reuse a name and overwrite a backup: keep stamps unique.
    this.#lastStampMs = Math.max(Date.now(), this.#lastStampMs + 1);
    await rename(
      this.path,
      join(dirname(this.path), `${stem}-${backupStamp(new Date(this.#lastStampMs), rotation.localTime)}${ext}`),
    );
    await this.#prune(rotation, stem, ext);
  }

  async #prune(rotation: RotationOptions, stem: string, ext: string): Promise<void> {
    const dir = dirname(this.path);
    const pattern = new RegExp(
      `^${escapeRegExp(stem)}-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{3}${escapeRegExp(ext)}$`,
    );
    // The stamp sorts chronologically as text; newest first.
    const backups = (await readdir(dir))
      .filter((n) => pattern.test(n))
      .sort()
      .reverse();
    const doomed = new Set<string>(rotation.maxBackups > 0 ? backups.slice(rotation.maxBackups) : []);
    if (rotation.maxDays > 0) {
      const cutoff = Date.now() - rotation.maxDays * DAY_MS;
      for (const name of backups) {
        const s = await stat(join(dir, name)).catch(() => undefined);
        if (s && s.mtimeMs < cutoff) doomed.add(name);
      }
    }
    await Promise.all([...doomed].map((name) => unlink(join(dir, name)).catch(() => {})));
  }
}

function backupStamp(now: Date, localTime: boolean): string {
  const d = localTime ? new Date(now.getTime() - now.getTimezoneOffset() * 60_000) : now;
  return d.toISOString().slice(0, 23).replace(/:/g, '-');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
