/**
 * Scenario 4 (issue 23): a collector whose consumer group does not exist, on a 32-partition hub, for 60 s
 * (one per backend, side by side). Reports the log lines on stderr at warn or error level, how many, and
 * the first few of them.
 */
import { randomName } from '../../../helpers/azurite.ts';
import type { Backend, Collector } from './collector.ts';
import { log, sleep, startCollector, type Context } from './context.ts';
import type { DiskAzurite } from './disk-azurite.ts';
import { startWorld } from './world.ts';

const PARTITIONS = 32;
const DURATION_S = 60;
const SHOWN_LINES = 6;
/** Short runs still cover the start (about 10 s on a busy machine) and the first backoff steps. */
const MIN_DURATION_S = 30;

export interface WrongCgResult {
  backend: Backend;
  partitions: number;
  seconds: number;
  /** Lines at warn or error from the collector's start until `seconds` later. */
  problemLines: number;
  byLevel: Record<string, number>;
  allLines: number;
  first: string[];
  /** Distinct messages among the problem lines. */
  messages: Record<string, number>;
}

export async function wrongCg(ctx: Context, azurite: DiskAzurite): Promise<WrongCgResult[]> {
  const world = await startWorld(1, []);
  const fleet: Collector[] = [];
  try {
    const connection = world.addQuietHub(PARTITIONS);
    for (const backend of ctx.settings.backends) {
      const name = `wcg-${backend}`;
      fleet.push(
        startCollector({
          name,
          dir: ctx.dir,
          backend,
          group: randomName('nosuchgroup'),
          container: randomName('wcg'),
          hubConnection: connection,
          storageConnection: azurite.connectionString,
          exporterEndpoint: ctx.sink.endpointFor(name),
        }),
      );
    }
    const seconds = Math.max(MIN_DURATION_S, ctx.ms(DURATION_S) / 1000);
    log(
      `wrong-cg: ${fleet.length} collectors with a consumer group that does not exist, ${PARTITIONS} partitions, ` +
        `${seconds} s`,
    );
    await sleep(seconds * 1000);
    const results = fleet.map((c): WrongCgResult => {
      const within = c.logs.filter((l) => l.at - c.startedAt <= seconds * 1000);
      const problems = within.filter((l) => l.level === 'warn' || l.level === 'error' || l.level === 'fatal');
      const byLevel: Record<string, number> = {};
      const messages: Record<string, number> = {};
      for (const l of problems) {
        byLevel[l.level!] = (byLevel[l.level!] ?? 0) + 1;
        messages[l.msg ?? '?'] = (messages[l.msg ?? '?'] ?? 0) + 1;
      }
      return {
        backend: c.options.backend,
        partitions: PARTITIONS,
        seconds,
        problemLines: problems.length,
        byLevel,
        allLines: within.length,
        first: problems.slice(0, SHOWN_LINES).map((l) => l.raw.slice(0, 2000)),
        messages,
      };
    });
    for (const r of results) {
      log(
        `wrong-cg ${r.backend}: ${r.problemLines} warn/error lines in ${r.seconds} s (${JSON.stringify(r.byLevel)}; ` +
          `${r.allLines} lines in all)`,
      );
      log(`  messages: ${JSON.stringify(r.messages)}`);
      for (const l of r.first) log(`  | ${l}`);
    }
    return results;
  } finally {
    await Promise.all(fleet.map((c) => c.stop(10_000)));
    await world.stop();
  }
}
