import { createFeatureGates, type FeatureGateRegistry } from '../../component/feature-gates.ts';
import { loadConfig } from '../../config/load-config.ts';
import type { Components } from '../components.ts';
import { resolveConfig, type ResolvedConfig } from '../resolve-config.ts';
import { UsageError } from '../usage-error.ts';

/** The flags every config-reading command takes, for `node:util` parseArgs. */
export const CONFIG_OPTIONS = {
  config: { type: 'string', short: 'c', multiple: true },
  set: { type: 'string', multiple: true },
  'feature-gates': { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

export const CONFIG_OPTIONS_HELP = `\
  -c, --config URI         Config to load; repeat to merge several (maps merge, later values win):
                           a path or file:<path>, env:<VAR> (the variable holds the YAML), or
                           yaml:<document>, e.g. 'yaml:exporters::debug::verbosity: basic'.
      --set KEY::PATH=VALUE
                           Override one value after the configs are merged (repeatable), e.g.
                           --set receivers::azure_event_hub::max_poll_events=500. The older
                           dotted form (receivers.azure_event_hub.group=audit) works too.
      --feature-gates IDS  Enable (+id or id) or disable (-id) feature gates, comma-separated.
                           Also read from OTELCOL_FEATURE_GATES.
  -h, --help               Show this help.`;

export interface ConfigFlags {
  readonly config?: readonly string[];
  readonly set?: readonly string[];
  readonly 'feature-gates'?: readonly string[];
}

/** Reads, merges, expands and validates the config the flags name. Throws ConfigError or UsageError. */
export async function loadFromFlags(
  flags: ConfigFlags,
  env: Readonly<Record<string, string | undefined>>,
  components: Components,
): Promise<ResolvedConfig> {
  if (!flags.config || flags.config.length === 0) throw new UsageError('--config is required');
  const loaded = await loadConfig({ configs: flags.config, sets: flags.set ?? [], env });
  return resolveConfig(loaded.raw, components, loaded.unset);
}

/** The feature gate registry with OTELCOL_FEATURE_GATES, then every `--feature-gates` flag, applied. */
export function gatesFromFlags(
  flags: ConfigFlags,
  env: Readonly<Record<string, string | undefined>>,
): FeatureGateRegistry {
  try {
    const gates = createFeatureGates(env);
    for (const spec of flags['feature-gates'] ?? []) gates.apply(spec);
    return gates;
  } catch (error) {
    throw new UsageError(`--feature-gates: ${(error as Error).message}`);
  }
}
