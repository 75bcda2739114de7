import type { Logger } from '../../component/logger.ts';

/** A round waits this long, in ms, for the hub's partition ids before it falls back to the last known list. */
export const PARTITION_IDS_TIMEOUT_MS = 30_000;

/** The hub's partition ids, asked for at every round; the last answer stands in when an ask fails. */
export class PartitionIdSource {
  readonly #get: () => Promise<string[]>;
  readonly #logger: Logger;
  #last: string[] | undefined;

  constructor(get: () => Promise<string[]>, logger: Logger) {
    this.#get = get;
    this.#logger = logger;
  }

  /** The ids now, or the last known list (undefined before any answer). Never rejects. */
  async fetch(): Promise<string[] | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${PARTITION_IDS_TIMEOUT_MS} ms`)),
        PARTITION_IDS_TIMEOUT_MS,
      );
      timer.unref();
    });
    try {
      this.#last = await Promise.race([this.#get(), timeout]);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.#logger.warn('could not read the hub partition ids; using the last known list', { error: message });
    } finally {
      clearTimeout(timer);
    }
    return this.#last;
  }
}
