import type { TestContext } from 'node:test';
import { BlobServiceClient } from '@azure/storage-blob';
import type { ReceiverConfigInput } from '../../src/index.ts';
import type { Emulator } from '../../src/emulator/index.ts';
import { startAzurite, randomName } from './azurite.ts';
import { startTestEmulator } from './emulator.ts';
import { LineChild } from './line-child.ts';
import { siblingModule } from './sibling-module.ts';
import { waitUntil as waitOnState } from './wait-until.ts';

const RUNNER = siblingModule(import.meta.url, 'receiver-process');

export interface StatusLine {
  readonly type: string;
  readonly partitionId?: string;
  readonly reason?: string;
  readonly sequenceNumber?: number;
  readonly at?: number;
}

/** One receiver child process and what it printed. */
export class Instance extends LineChild {
  /** Every acknowledged record: [partition, sequence number, time seen]. */
  readonly records: [string, number, number][] = [];
  readonly statuses: StatusLine[] = [];

  constructor(name: string, config: ReceiverConfigInput) {
    super(name, process.execPath, [...RUNNER.execArgv, RUNNER.path], {
      ...process.env,
      RECEIVER_CONFIG: JSON.stringify(config),
    });
  }

  protected onLine(line: string): void {
    if (line.startsWith('R ')) {
      const [, pid, seq] = line.split(' ');
      this.records.push([pid!, Number(seq), Date.now()]);
    } else if (line.startsWith('S ')) {
      const status = JSON.parse(line.slice(2)) as StatusLine;
      this.statuses.push(status);
      if (status.type === 'partitionOpened') this.owned.add(status.partitionId!);
      if (status.type === 'partitionClosed') this.owned.delete(status.partitionId!);
    }
  }
}

/** Waits for `cond`; on timeout, throws naming `what` (a function is called then, to describe the state at the end). */
export function waitUntil(
  cond: () => boolean,
  timeoutMs: number,
  what: string | (() => string),
  instances: readonly Instance[] = [],
): Promise<number> {
  const describe = () => {
    const detail = instances
      .map((i) => `${i.name}: owns [${[...i.owned].join(',')}] stderr: ${i.stderr.slice(-800)}`)
      .join('\n');
    return `${typeof what === 'function' ? what() : what}\n${detail}`;
  };
  return waitOnState(cond, timeoutMs, describe, 25);
}

/** Count of records per (partition, sequence number) over all instances. */
export function tally(instances: readonly Instance[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const i of instances)
    for (const [pid, seq] of i.records) counts.set(`${pid}/${seq}`, (counts.get(`${pid}/${seq}`) ?? 0) + 1);
  return counts;
}

/**
 * Whether the instances exported `total` distinct events between them: a condition to poll while a fleet
 * drains. Distinct events are counted only once the records could add up to `total`; counting them
 * (`tally`) on every poll of a long wait cost seconds of CPU with tens of thousands of records.
 */
export function exportedAll(instances: readonly Instance[], total: number): boolean {
  let records = 0;
  for (const i of instances) records += i.records.length;
  return records >= total && tally(instances).size === total;
}

/** A hub (emulator) and a checkpoint container (Azurite) for a fleet test, with a steady producer. */
export interface FleetWorld {
  readonly connectionString: string;
  readonly storageConnectionString: string;
  readonly container: string;
  readonly emulator: Emulator;
  /** The hub's name in the emulator (for its fault API). */
  readonly hubName: string;
  /** Events appended so far per partition (sequence numbers 0..n-1). */
  readonly produced: Map<string, number>;
  stopProducing(): void;
}

/**
 * Starts Azurite and the emulator, creates a container, and appends `perTick` events per partition every
 * `tickMs`. A reader's batch ends some 20 ms after its first event (the SDK's receiveBatch), so events that
 * come one at a time cost a batch each (a read, an export, for an SDK processor a checkpoint): a few
 * events per tick cost the readers less CPU than the same rate spread thin.
 */
export async function startFleetWorld(
  t: TestContext,
  partitions: number,
  perTick: number,
  tickMs = 100,
): Promise<FleetWorld> {
  const azurite = await startAzurite();
  t.after(() => azurite.stop());
  const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions });
  const container = randomName('fleet');
  await BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(container).create();
  const produced = new Map<string, number>();
  const producer = setInterval(() => {
    for (let p = 0; p < partitions; p++) {
      const pid = String(p);
      const n = produced.get(pid) ?? 0;
      emulator.append(
        hubName,
        pid,
        Array.from({ length: perTick }, (_, i) => ({ body: `p${pid}-${n + i}` })),
      );
      produced.set(pid, n + perTick);
    }
  }, tickMs);
  t.after(() => clearInterval(producer));
  return {
    connectionString,
    storageConnectionString: azurite.connectionString,
    container,
    emulator,
    hubName,
    produced,
    stopProducing: () => clearInterval(producer),
  };
}
