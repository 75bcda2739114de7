import { BlobServiceClient, type ContainerClient, type StoragePipelineOptions } from '@azure/storage-blob';
import type { TokenCredential } from '@azure/core-auth';
import type { DeadLetterEntry, DeadLetterStore } from './dead-letter.ts';
import { deadLetterPath, groupByPath } from './dead-letter-format.ts';
import { redact } from '../component/redact.ts';

/**
 * Largest append block written. The service accepts 4 MiB per block with every API version (100 MiB
 * only since 2022-11-02, which Azurite 3.35 may not honour); lines are never split across blocks
 * unless one line alone is larger.
 */
export const MAX_APPEND_BLOCK_BYTES = 4 * 1024 * 1024;

/** An append blob holds at most 50 000 blocks; past that the service answers 409 BlockCountExceedsLimit. */
const BLOCK_COUNT_EXCEEDED = 'BlockCountExceedsLimit';

export interface BlobDeadLetterStoreOptions {
  /** The container the blobs go to; created on first write when missing. */
  readonly containerClient: ContainerClient;
}

/**
 * Dead letters as JSON-lines append blobs in a container (`dead_letter.container`), one blob per
 * partition and UTC day: `<namespace>/<hub>/<consumer group>/deadletter/<partition>/<yyyy-mm-dd>.jsonl`
 * (the same layout as the checkpoint blobs, so one container may hold both). When a blob reaches the
 * service's 50 000-block limit, writing continues in `<yyyy-mm-dd>.1.jsonl`, `.2`, ...
 * `write` resolves once the service acknowledged every block. Errors never carry keys or SAS tokens.
 */
export class BlobDeadLetterStore implements DeadLetterStore {
  readonly #container: ContainerClient;
  #containerReady: Promise<unknown> | undefined;
  readonly #chains = new Map<string, Promise<void>>();
  /** Roll-over suffix per base blob name, once a blob is full. */
  readonly #suffix = new Map<string, number>();
  /** Blobs known to exist, so `createIfNotExists` runs once per blob. */
  readonly #created = new Set<string>();

  constructor(options: BlobDeadLetterStoreOptions) {
    this.#container = options.containerClient;
  }

  /** From a storage connection string (never logged; errors are redacted). */
  static fromConnectionString(
    connectionString: string,
    container: string,
    options?: StoragePipelineOptions,
  ): BlobDeadLetterStore {
    const containerClient = BlobServiceClient.fromConnectionString(connectionString, options).getContainerClient(
      container,
    );
    return new BlobDeadLetterStore({ containerClient });
  }

  /** From an account URL and an Entra ID credential (e.g. `DefaultAzureCredential`). */
  static fromUrl(
    storageAccountUrl: string,
    container: string,
    credential: TokenCredential,
    options?: StoragePipelineOptions,
  ): BlobDeadLetterStore {
    const containerClient = new BlobServiceClient(storageAccountUrl, credential, options).getContainerClient(container);
    return new BlobDeadLetterStore({ containerClient });
  }

  /**
   * The URL of the blob `entry` goes to (its first blob of the day; after a roll-over, `.1.jsonl`, ...),
   * without the query string: a container reached through a SAS connection string carries the token there.
   */
  locationOf(entry: DeadLetterEntry): string {
    const url = new URL(this.#container.url);
    url.search = '';
    url.hash = '';
    url.username = '';
    url.password = '';
    return `${url.toString().replace(/\/+$/, '')}/${deadLetterPath(entry)}`;
  }

  async write(entries: readonly DeadLetterEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const groups = groupByPath(entries);
    try {
      await this.#ensureContainer();
      await Promise.all(
        [...groups].map(([name, lines]) => this.#serialized(name, () => this.#appendLines(name, lines))),
      );
    } catch (error) {
      // No `cause`: the storage SDK's RestError carries the request (URL with any SAS token, headers).
      // biome-ignore lint/plugin/preserve-caught-error: the caught error is left out on purpose (see above)
      throw new Error(
        `dead-letter write to container '${this.#container.containerName}' failed: ` +
          `${redact(error instanceof Error ? error.message : String(error))}`,
      );
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#chains.values()]);
  }

  #ensureContainer(): Promise<unknown> {
    this.#containerReady ??= this.#container.createIfNotExists().catch((error: unknown) => {
      this.#containerReady = undefined;
      throw error;
    });
    return this.#containerReady;
  }

  #serialized(name: string, work: () => Promise<void>): Promise<void> {
    const next = (this.#chains.get(name) ?? Promise.resolve()).catch(() => {}).then(work);
    this.#chains.set(name, next);
    void next
      .finally(() => {
        if (this.#chains.get(name) === next) this.#chains.delete(name);
      })
      .catch(() => {});
    return next;
  }

  async #appendLines(baseName: string, lines: readonly string[]): Promise<void> {
    for (const block of toBlocks(lines)) {
      for (;;) {
        const suffix = this.#suffix.get(baseName) ?? 0;
        const name = suffix === 0 ? baseName : baseName.replace(/\.jsonl$/, `.${suffix}.jsonl`);
        const blob = this.#container.getAppendBlobClient(name);
        if (!this.#created.has(name)) {
          await blob.createIfNotExists({ blobHTTPHeaders: { blobContentType: 'application/x-ndjson' } });
          this.#created.add(name);
        }
        try {
          await blob.appendBlock(block, block.byteLength);
          break;
        } catch (error) {
          if ((error as { code?: unknown }).code !== BLOCK_COUNT_EXCEEDED) throw error;
          this.#suffix.set(baseName, suffix + 1);
        }
      }
    }
  }
}

/** Packs lines into blocks of at most MAX_APPEND_BLOCK_BYTES, splitting only a line that alone is larger. */
function toBlocks(lines: readonly string[]): Buffer[] {
  const blocks: Buffer[] = [];
  let current: Buffer[] = [];
  let size = 0;
  const flush = () => {
    if (size > 0) blocks.push(Buffer.concat(current, size));
    current = [];
    size = 0;
  };
  for (const line of lines) {
    const bytes = Buffer.from(line, 'utf8');
    if (size + bytes.byteLength > MAX_APPEND_BLOCK_BYTES) flush();
    if (bytes.byteLength > MAX_APPEND_BLOCK_BYTES) {
      for (let i = 0; i < bytes.byteLength; i += MAX_APPEND_BLOCK_BYTES)
        blocks.push(bytes.subarray(i, i + MAX_APPEND_BLOCK_BYTES));
      continue;
    }
    current.push(bytes);
    size += bytes.byteLength;
  }
  flush();
  return blocks;
}
