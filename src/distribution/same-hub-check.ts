import { connectionStringParts } from '../component/connection-strings.ts';
import type { ReceiverConfig } from '../config/receiver-config.ts';

/**
 * One receiver per hub and consumer group: a receiver feeds every pipeline that lists it, each signal once
 * (docs/signals.md). Two receivers on the same hub, consumer group and partitions would read every event
 * twice (without a checkpoint store) or compete for the same leases as if they were two instances (with
 * one), and each would export only the signals of its own pipelines, so the other signals of the events it
 * takes would be set aside. The Go collector shares one receiver per identical config for this reason.
 */

/** What identifies what a receiver reads: namespace host, hub name, consumer group (lower case), partition. */
interface HubKey {
  readonly hub: string;
  readonly partition: string | undefined;
}

function hostOf(endpoint: string | undefined): string | undefined {
  if (!endpoint) return undefined;
  try {
    return new URL(endpoint.includes('://') ? endpoint : `sb://${endpoint}`).host.toLowerCase();
  } catch {
    return undefined;
  }
}

function hubKey(config: Partial<ReceiverConfig>): HubKey | undefined {
  const parts = typeof config.connection === 'string' ? connectionStringParts(config.connection) : undefined;
  const namespace = hostOf(config.event_hub?.namespace) ?? hostOf(parts?.get('endpoint'));
  const name = (config.event_hub?.name ?? parts?.get('entitypath'))?.toLowerCase();
  if (!namespace || !name) return undefined;
  const group = (config.group ?? '$Default').toLowerCase();
  return { hub: `${namespace}/${name}/${group}`, partition: config.partition || undefined };
}

/**
 * Issues for receivers (of the `azure_event_hub` shape) that would read the same partitions of the same hub
 * and consumer group as an earlier one. Receivers on different explicit partitions do not overlap.
 */
export function sameHubIssues(
  receivers: ReadonlyMap<string, { readonly config: unknown }>,
  used: ReadonlySet<string>,
): string[] {
  const issues: string[] = [];
  const seen: { id: string; key: HubKey }[] = [];
  for (const [id, r] of receivers) {
    if (!used.has(id)) continue;
    const key = hubKey((r.config ?? {}) as Partial<ReceiverConfig>);
    if (!key) continue;
    const first = seen.find(
      (s) => s.key.hub === key.hub && (!s.key.partition || !key.partition || s.key.partition === key.partition),
    );
    if (first) {
      issues.push(
        `receivers.${id}: reads the same event hub and consumer group as receivers.${first.id}, so their partitions ` +
          `would be read twice; use one receiver and list it in every pipeline that needs it (it feeds each ` +
          `signal once), or give each its own consumer group (group) or partition`,
      );
    } else seen.push({ id, key });
  }
  return issues;
}
