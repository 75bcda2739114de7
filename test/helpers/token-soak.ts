/**
 * Pieces of the token-renewal soak (test/integration/backends/token-renewal.test.ts, the short one;
 * test/bench/token-soak.bench.ts, the long one): a steady load of numbered events appended to the
 * emulator, readers that count every event by id, and the emulator's claims summed up per audience.
 */
import type { HubClient, PartitionReader } from '../../src/backends/consumer.ts';
import type { Emulator } from '../../src/emulator/index.ts';

/**
 * Appends `eventsPerSecond` events (bodies `<partition>:<n>`, n from 0) spread over the partitions, in 10 ticks a
 * second.
 */
export class SteadyLoad {
  readonly sent: number[];
  #timer: NodeJS.Timeout | undefined;
  #owed = 0;

  constructor(
    private readonly emulator: Emulator,
    private readonly hubName: string,
    private readonly partitions: number,
    private readonly eventsPerSecond: number,
  ) {
    this.sent = new Array<number>(partitions).fill(0);
  }

  start(): void {
    let next = 0;
    this.#timer = setInterval(() => {
      this.#owed += this.eventsPerSecond / 10;
      for (; this.#owed >= 1; this.#owed--) {
        const p = next++ % this.partitions;
        this.emulator.append(this.hubName, String(p), [{ body: `${p}:${this.sent[p]!++}` }]);
      }
    }, 100);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  get total(): number {
    return this.sent.reduce((a, b) => a + b, 0);
  }
}

export interface PartitionCount {
  /** Distinct event ids received. */
  readonly unique: number;
  /** Events received again. */
  readonly duplicates: number;
}

/** One reader per partition from the start of each, counting events by id until closed. */
export class CountingReaders {
  readonly #seen: Array<Set<number>>;
  readonly #duplicates: number[];
  readonly #controller = new AbortController();
  readonly #loops: Array<Promise<void>> = [];
  readonly #readers: PartitionReader[] = [];
  /** Errors a receive threw (the reader is reopened after each). */
  readonly errors: string[] = [];

  constructor(
    private readonly client: HubClient,
    private readonly partitions: number,
  ) {
    this.#seen = Array.from({ length: partitions }, () => new Set<number>());
    this.#duplicates = new Array<number>(partitions).fill(0);
  }

  async start(): Promise<void> {
    for (let p = 0; p < this.partitions; p++) this.#loops.push(this.#read(p));
  }

  async #read(p: number): Promise<void> {
    const signal = this.#controller.signal;
    let next = 0;
    while (!signal.aborted) {
      let reader: PartitionReader | undefined;
      try {
        reader = await this.client.openPartition(String(p), {
          startPosition: { kind: 'sequenceNumber', sequenceNumber: next, inclusive: true },
        });
        this.#readers.push(reader);
        while (!signal.aborted) {
          for (const event of await reader.receive(100, 500, signal)) {
            next = event.sequenceNumber + 1;
            const id = Number(Buffer.from(event.body).toString().split(':')[1]);
            if (this.#seen[p]!.has(id)) this.#duplicates[p]!++;
            else this.#seen[p]!.add(id);
          }
        }
      } catch (error) {
        if (signal.aborted) break;
        this.errors.push(`partition ${p}: ${(error as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      } finally {
        await reader?.close().catch(() => undefined);
      }
    }
  }

  counts(): PartitionCount[] {
    return this.#seen.map((s, p) => ({ unique: s.size, duplicates: this.#duplicates[p]! }));
  }

  /** Events sent but not (yet) received. */
  missing(sent: readonly number[]): number {
    return sent.reduce((sum, n, p) => {
      let absent = 0;
      for (let id = 0; id < n; id++) if (!this.#seen[p]!.has(id)) absent++;
      return sum + absent;
    }, 0);
  }

  async close(): Promise<void> {
    this.#controller.abort();
    await Promise.all(this.#loops);
  }
}

export interface AudienceClaims {
  readonly audience: string;
  readonly puts: number;
  /** Puts after the first: renewals. */
  readonly renewals: number;
  /** Puts the emulator refused. */
  readonly refused: number;
}

/** The claims put on the emulator, per audience, optionally only those whose audience matches `filter`. */
export function claimsPerAudience(emulator: Emulator, filter?: RegExp): AudienceClaims[] {
  const byAudience = new Map<string, { puts: number; refused: number }>();
  for (const put of emulator.claims.puts) {
    if (filter && !filter.test(put.audience)) continue;
    const entry = byAudience.get(put.audience) ?? { puts: 0, refused: 0 };
    entry.puts++;
    if (put.statusCode !== 202) entry.refused++;
    byAudience.set(put.audience, entry);
  }
  return [...byAudience].map(([audience, e]) => ({ audience, puts: e.puts, renewals: e.puts - 1, refused: e.refused }));
}

/** A partition reader's claim audience: `.../ConsumerGroups/<cg>/Partitions/<p>`. */
export const PARTITION_AUDIENCE = /\/ConsumerGroups\/[^/]+\/Partitions\/\d+$/i;
