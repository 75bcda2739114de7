/**
 * The emulated namespace: hubs, their partitions' logs and their consumer groups. Entity names compare
 * case-insensitively, as on the service. `$Default` always exists.
 */
import { NUMERIC_OFFSETS, type OffsetFormat } from './offset-format.ts';
import { DEFAULT_MAX_PARTITIONS, tierHint, tierQuotas, type TierQuotas } from '../tier-quotas.ts';
import type { EmulatorHubConfig } from '../types.ts';
import { PartitionLog } from './partition-log.ts';
import { validateCaptureConfig } from './capture-config.ts';

export const DEFAULT_CONSUMER_GROUP = '$Default';
/** The default (Docker emulator) limit; a tier may allow more (`tier-quotas.ts`). */
export const MAX_PARTITIONS = DEFAULT_MAX_PARTITIONS;

export class Hub {
  readonly createdAt = new Date();
  readonly partitionIds: string[];
  readonly logs: PartitionLog[];
  readonly consumerGroups = new Map<string, string>(); // lower-cased → as configured
  private roundRobin = 0;

  constructor(
    readonly name: string,
    partitionCount: number,
    consumerGroups: string[],
    offsets: OffsetFormat = NUMERIC_OFFSETS,
  ) {
    this.partitionIds = Array.from({ length: partitionCount }, (_, i) => String(i));
    this.logs = this.partitionIds.map((id) => new PartitionLog(name, id, offsets));
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

/** Checks one hub's own settings against the per-hub quotas (default: the Docker emulator's 1–32 partitions). */
export function validateHubConfig(config: EmulatorHubConfig, quotas: TierQuotas = tierQuotas()): void {
  if (typeof config.name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,255}$/.test(config.name)) {
    throw new Error(
      `hub name '${String(config.name)}' is not valid: use letters, digits, '.', '_' and '-', starting with a ` +
        `letter or digit`,
    );
  }
  const max = quotas.partitionsPerHub;
  if (!Number.isInteger(config.partitions) || config.partitions < 1 || config.partitions > max) {
    const hint = quotas.tier === 'emulator' && Number.isInteger(config.partitions) ? tierHint(config.partitions) : '';
    throw new Error(
      `hub '${config.name}': partitions must be an integer from 1 to ${max} (tier ${quotas.tier}), got ` +
        `${String(config.partitions)}${hint}`,
    );
  }
  if (config.capture) validateCaptureConfig(config.name, config.capture);
  for (const cg of config.consumerGroups ?? []) {
    if (typeof cg !== 'string' || !/^[A-Za-z0-9$][A-Za-z0-9._-]{0,49}$/.test(cg)) {
      throw new Error(`hub '${config.name}': consumer group name '${String(cg)}' is not valid`);
    }
  }
}

export class Namespace {
  private readonly hubs = new Map<string, Hub>();

  constructor(
    private readonly sharedConsumerGroups: string[],
    readonly quotas: TierQuotas = tierQuotas(),
    private readonly offsets: OffsetFormat = NUMERIC_OFFSETS,
  ) {}

  /** Adds a hub; throws when it breaks a quota of the namespace's tier (the service refuses such a hub too). */
  add(config: EmulatorHubConfig): Hub {
    validateHubConfig(config, this.quotas);
    const key = config.name.toLowerCase();
    if (this.hubs.has(key)) throw new Error(`hub '${config.name}' already exists`);
    this.checkNamespaceQuotas(config);
    const hub = new Hub(
      config.name,
      config.partitions,
      [...this.sharedConsumerGroups, ...(config.consumerGroups ?? [])],
      this.offsets,
    );
    this.hubs.set(key, hub);
    return hub;
  }

  private checkNamespaceQuotas(config: EmulatorHubConfig): void {
    const { tier, hubsPerNamespace, partitionsPerNamespace, consumerGroupsPerHub } = this.quotas;
    if (hubsPerNamespace !== undefined && this.hubs.size + 1 > hubsPerNamespace) {
      throw new Error(`hub '${config.name}': a ${tier} namespace holds at most ${hubsPerNamespace} hubs`);
    }
    if (partitionsPerNamespace !== undefined) {
      let total = config.partitions;
      for (const hub of this.hubs.values()) total += hub.partitionIds.length;
      if (total > partitionsPerNamespace) {
        throw new Error(
          `hub '${config.name}': a ${tier} namespace holds at most ${partitionsPerNamespace} partitions over all ` +
            `hubs, this hub makes ${total}`,
        );
      }
    }
    const groups = new Set(
      [DEFAULT_CONSUMER_GROUP, ...this.sharedConsumerGroups, ...(config.consumerGroups ?? [])].map((g) =>
        g.toLowerCase(),
      ),
    );
    if (consumerGroupsPerHub !== undefined && groups.size > consumerGroupsPerHub) {
      throw new Error(
        `hub '${config.name}': a ${tier} hub has at most ${consumerGroupsPerHub} consumer groups ($Default ` +
          `included), got ${groups.size}`,
      );
    }
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
