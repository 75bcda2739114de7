/**
 * Namespace quotas of the Event Hubs service tiers, so the emulator can stand in for a Premium or
 * Dedicated namespace (up to 1024 partitions per hub) while its default stays the Docker emulator's 1–32.
 * Figures from "Azure Event Hubs quotas and limits" (learn.microsoft.com/azure/event-hubs/event-hubs-quotas),
 * table "Basic vs. standard vs. premium vs. dedicated tiers". Premium scales with processing units (PU),
 * Dedicated with capacity units (CU): `units` multiplies the per-unit figures.
 */

/**
 * `emulator` (the default): Microsoft's Docker emulator's partition limit (1–32) and nothing else, as
 * this emulator always behaved. The others apply that tier's namespace quotas.
 */
export type EmulatorTier = 'emulator' | 'basic' | 'standard' | 'premium' | 'dedicated';

export const EMULATOR_TIERS: readonly EmulatorTier[] = ['emulator', 'basic', 'standard', 'premium', 'dedicated'];

export interface TierQuotas {
  readonly tier: EmulatorTier;
  /** Most partitions one hub may have. */
  readonly partitionsPerHub: number;
  /** Most partitions over all hubs of the namespace; undefined: no namespace-wide limit. */
  readonly partitionsPerNamespace?: number;
  /** Most hubs in the namespace; undefined: no limit. */
  readonly hubsPerNamespace?: number;
  /** Most consumer groups per hub, `$Default` included; undefined: no limit. */
  readonly consumerGroupsPerHub?: number;
}

/** The Docker emulator's (and this emulator's default) partition limit per hub. */
export const DEFAULT_MAX_PARTITIONS = 32;

/** The quotas of a tier; `units` is the number of PUs (premium) or CUs (dedicated), default 1. */
export function tierQuotas(tier: EmulatorTier = 'emulator', units = 1): TierQuotas {
  if (!Number.isInteger(units) || units < 1)
    throw new RangeError(`capacity units must be a positive integer, got ${String(units)}`);
  switch (tier) {
    case 'emulator':
      return { tier, partitionsPerHub: DEFAULT_MAX_PARTITIONS };
    case 'basic':
      return { tier, partitionsPerHub: 32, hubsPerNamespace: 10, consumerGroupsPerHub: 1 };
    case 'standard':
      return { tier, partitionsPerHub: 32, hubsPerNamespace: 10, consumerGroupsPerHub: 20 };
    case 'premium':
      return {
        tier,
        partitionsPerHub: 100,
        partitionsPerNamespace: 200 * units,
        hubsPerNamespace: 100 * units,
        consumerGroupsPerHub: 100,
      };
    case 'dedicated':
      return {
        tier,
        partitionsPerHub: 1024,
        partitionsPerNamespace: 2000 * units,
        hubsPerNamespace: 1000,
        consumerGroupsPerHub: 1000,
      };
    default:
      throw new RangeError(`tier must be one of ${EMULATOR_TIERS.join(', ')}, got '${String(tier)}'`);
  }
}

/** The hint appended to a partition-count error: which tier would allow the count. */
export function tierHint(partitions: number): string {
  if (partitions <= 32) return '';
  if (partitions <= 100) return ' (a Premium namespace allows up to 100: tier premium)';
  if (partitions <= 1024) return ' (a Dedicated namespace allows up to 1024: tier dedicated)';
  return ' (no Event Hubs tier allows more than 1024)';
}
