/**
 * The emulated namespace: hubs, their partitions' logs and their consumer groups. Entity names compare
 * case-insensitively, as on the service. `$Default` always exists.
 */
import type { EmulatorHubConfig } from '../types.ts';
import { PartitionLog } from './partition-log.ts';

export const DEFAULT_CONSUMER_GROUP = '$Default';
export const MAX_PARTITIONS = 32;

export class Hub {
  readonly createdAt = new Date();
  readonly partitionIds: string[];
  readonly logs: PartitionLog[];
  readonly consumerGroups = new Map<string, string>(); // lower-cased → as configured
  private roundRobin = 0;

  constructor(readonly name: string, partitionCount: number, consumerGroups: string[]) {
    this.partitionIds = Array.from({ length: partitionCount }, (_, i) => String(i));
    this.logs = this.partitionIds.map((id) => new PartitionLog(name, id));
    for (const cg of [DEFAULT_CONSUMER_GROUP, ...consumerGroups]) this.consumerGroups.set(cg.toLowerCase(), cg);
  }

  log(partitionId: string): PartitionLog | undefined {
    if (!/^\d+$/.test(partitionId)) return undefined;
    return this.logs[Number(partitionId)];
  }

  hasConsumerGroup(name: string): boolean {
    return this.consumerGroups.has(name.toLowerCase());
  }

  /** The partition for an event sent without partition id or key: round-robin, as the service spreads them. */
  nextRoundRobin(): PartitionLog {
    const log = this.logs[this.roundRobin % this.logs.length]!;
    this.roundRobin = (this.roundRobin + 1) % this.logs.length;
    return log;
  }
}

export function validateHubConfig(config: EmulatorHubConfig): void {
  if (typeof config.name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,255}$/.test(config.name)) {
    throw new Error(`hub name '${String(config.name)}' is not valid: use letters, digits, '.', '_' and '-', starting with a letter or digit`);
  }
  if (!Number.isInteger(config.partitions) || config.partitions < 1 || config.partitions > MAX_PARTITIONS) {
    throw new Error(`hub '${config.name}': partitions must be an integer from 1 to ${MAX_PARTITIONS}, got ${String(config.partitions)}`);
  }
  for (const cg of config.consumerGroups ?? []) {
    if (typeof cg !== 'string' || !/^[A-Za-z0-9$][A-Za-z0-9._-]{0,49}$/.test(cg)) {
      throw new Error(`hub '${config.name}': consumer group name '${String(cg)}' is not valid`);
    }
  }
}

export class Namespace {
  private readonly hubs = new Map<string, Hub>();

  constructor(private readonly sharedConsumerGroups: string[]) {}

  add(config: EmulatorHubConfig): Hub {
    validateHubConfig(config);
    const key = config.name.toLowerCase();
    if (this.hubs.has(key)) throw new Error(`hub '${config.name}' already exists`);
    const hub = new Hub(config.name, config.partitions, [...this.sharedConsumerGroups, ...(config.consumerGroups ?? [])]);
    this.hubs.set(key, hub);
    return hub;
  }

  remove(name: string): Hub | undefined {
    const key = name.toLowerCase();
    const hub = this.hubs.get(key);
    this.hubs.delete(key);
    return hub;
  }

  get(name: string): Hub | undefined {
    return this.hubs.get(name.toLowerCase());
  }

  all(): Iterable<Hub> {
    return this.hubs.values();
  }
}
