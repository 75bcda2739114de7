import { mkdir, open, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { DeadLetterEntry, DeadLetterStore } from './dead-letter.ts';
import { deadLetterPath, groupByPath } from './dead-letter-format.ts';

/**
 * Dead letters as JSON-lines files under `directory` (`dead_letter.directory`), one file per partition
 * and UTC day: `<namespace>/<hub>/<consumer group>/deadletter/<partition>/<yyyy-mm-dd>.jsonl`.
 * `write` appends and fsyncs every file it touched before it resolves, so an entry it acknowledged
 * survives a crash or power loss. Appends to one file are serialized (lines never interleave).
 */
export class DirectoryDeadLetterStore implements DeadLetterStore {
  readonly directory: string;
  /** The tail of the append chain per file: writes to one file run one after another. */
  readonly #chains = new Map<string, Promise<void>>();

  constructor(directory: string) {
    this.directory = directory;
  }

  async write(entries: readonly DeadLetterEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const groups = groupByPath(entries);
    await Promise.all(
      [...groups].map(([relative, lines]) =>
        this.#append(join(this.directory, ...relative.split('/')), lines.join('')),
      ),
    );
  }

  /** The absolute path of the file `entry` goes to. */
  locationOf(entry: DeadLetterEntry): string {
    return resolve(this.directory, ...deadLetterPath(entry).split('/'));
  }

  #append(file: string, text: string): Promise<void> {
    const previous = this.#chains.get(file) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(() => appendDurably(file, text));
    this.#chains.set(file, next);
    void next
      .finally(() => {
        if (this.#chains.get(file) === next) this.#chains.delete(file);
      })
      .catch(() => {});
    return next;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#chains.values()]);
  }
}

async function appendDurably(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const existed = await stat(file).then(
    () => true,
    () => false,
  );
  const handle = await open(file, 'a', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  // A new file is durable only once its directory entry is: fsync the directory too (POSIX; where a
  // directory cannot be opened, as on Windows, the file's own fsync is all there is).
  if (!existed) await syncDirectory(dirname(file));
}

async function syncDirectory(directory: string): Promise<void> {
  let handle;
  try {
    handle = await open(directory, 'r');
    await handle.sync();
  } catch {
    // not supported on this platform
  } finally {
    await handle?.close();
  }
}
