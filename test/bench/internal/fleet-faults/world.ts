/**
 * The hub side of a fleet-faults scenario: an emulator (in this process, through its documented API) with
 * one hub and a consumer group per fleet, and a producer appending a steady rate spread evenly over the
 * partitions (every 100 ms). Sequence numbers are 0..n-1 per partition, so the produced ids and their
 * production times are known exactly: the re-read analysis uses them instead of the coarse
 * `enqueued_time` attribute (whole seconds).
 */
import { startEmulator, type Emulator } from '../../../../src/emulator/index.ts';
import { randomName } from '../../../helpers/azurite.ts';

const TICK_MS = 100;

export interface World {
  readonly emulator: Emulator;
  readonly hub: string;
  readonly partitions: number;
  readonly connectionString: string;
  /** Production time of every event, per partition, indexed by sequence number. */
  readonly producedAt: number[][];
  produced(): number;
  startProducing(eventsPerSecond: number): void;
  stopProducing(): void;
  /** A hub with `partitions` partitions and no traffic (for the wrong-consumer-group scenario). */
  addQuietHub(partitions: number): string;
  stop(): Promise<void>;
}

export async function startWorld(partitions: number, consumerGroups: string[]): Promise<World> {
  const hub = randomName('hub');
  const emulator = await startEmulator({ port: 0, hubs: [{ name: hub, partitions, consumerGroups }] });
  const producedAt: number[][] = Array.from({ length: partitions }, () => []);
  let timer: NodeJS.Timeout | undefined;
  return {
    emulator,
    hub,
    partitions,
    connectionString: emulator.connectionString(hub),
    producedAt,
    produced: () => producedAt.reduce((n, p) => n + p.length, 0),
    startProducing(eventsPerSecond) {
      let due = 0;
      let next = 0;
      timer = setInterval(() => {
        due += (eventsPerSecond * TICK_MS) / 1000;
        const now = Date.now();
        for (; due >= 1; due--, next = (next + 1) % partitions) {
          const p = producedAt[next]!;
          emulator.append(hub, String(next), [{ body: `fleet-faults ${next}/${p.length} ${now}` }]);
          p.push(now);
        }
      }, TICK_MS);
    },
    stopProducing: () => clearInterval(timer),
    addQuietHub(count) {
      const name = randomName('wide');
      emulator.addHub({ name, partitions: count });
      return emulator.connectionString(name);
    },
    async stop() {
      clearInterval(timer);
      await emulator.stop();
    },
  };
}
