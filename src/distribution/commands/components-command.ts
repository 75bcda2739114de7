import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import type { CliIo } from '../cli-io.ts';
import { factorySignals, type Components, type NamedFactory } from '../components.ts';
import { EXIT_OK } from '../exit-codes.ts';
import { gatesFromFlags } from './config-options.ts';

export const COMPONENTS_HELP = `Usage: otelcol-azure-eventhub components [--feature-gates IDS]

Lists the receivers, processors, exporters and extensions this distribution is built with, with their
aliases and stability, and the feature gates with their stage and whether they are on. YAML output.

Options:
      --feature-gates IDS  Show the gates as these flags would set them.
  -h, --help               Show this help.`;

/** `components`: what the distribution can run, as YAML on stdout. */
export async function componentsCommand(args: readonly string[], io: CliIo, components: Components): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: { help: { type: 'boolean', short: 'h' }, 'feature-gates': { type: 'string', multiple: true } },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    io.out(COMPONENTS_HELP);
    return EXIT_OK;
  }
  const gates = gatesFromFlags(values, io.env);
  const list = (factories: readonly NamedFactory[]) =>
    factories.map((f) => ({
      name: f.type,
      ...(f.aliases?.length ? { aliases: [...f.aliases] } : {}),
      // Per signal, as the collector prints it: `logs: beta`, `metrics: beta`, ...
      stability: Object.fromEntries(factorySignals(f).map((s) => [s, f.stability])),
    }));
  io.out(
    stringify({
      receivers: list(components.receivers),
      processors: list(components.processors),
      exporters: list(components.exporters),
      extensions: components.extensions.map((f) => ({
        name: f.type,
        ...(f.aliases?.length ? { aliases: [...f.aliases] } : {}),
        stability: { extension: f.stability },
      })),
      feature_gates: gates
        .list()
        .map((g) => ({ id: g.id, stage: g.stage, enabled: g.enabled, description: g.description })),
    }).trimEnd(),
  );
  return EXIT_OK;
}
