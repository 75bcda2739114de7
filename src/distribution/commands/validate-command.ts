import { parseArgs } from 'node:util';
import type { CliIo } from '../cli-io.ts';
import type { Components } from '../components.ts';
import { EXIT_OK } from '../exit-codes.ts';
import { CONFIG_OPTIONS, CONFIG_OPTIONS_HELP, gatesFromFlags, loadFromFlags } from './config-options.ts';

export const VALIDATE_HELP = `\
Usage: otelcol-azure-eventhub validate --config URI [--config URI ...] [--set KEY::PATH=VALUE ...]

Checks the config without connecting to anything: every section against its component's schema,
unknown keys (with a suggestion), and every reference between components. Prints every problem with
its dotted path; secrets are never printed.

Options:
${CONFIG_OPTIONS_HELP}

Exit codes: 0 valid, 2 invalid (or bad flags).`;

/** `validate`: 0 when the config is valid; a ConfigError/UsageError (exit 2) otherwise. */
export async function validateCommand(args: readonly string[], io: CliIo, components: Components): Promise<number> {
  const { values } = parseArgs({ args: [...args], options: CONFIG_OPTIONS, strict: true, allowPositionals: false });
  if (values.help) {
    io.out(VALIDATE_HELP);
    return EXIT_OK;
  }
  gatesFromFlags(values, io.env);
  const resolved = await loadFromFlags(values, io.env, components);
  for (const w of resolved.warnings) io.err(`warning: ${w}`);
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  io.out(
    `the configuration is valid: ${count(resolved.receivers.size, 'receiver')}, ` +
      `${count(resolved.exporters.size, 'exporter')}, ` +
      `${count(resolved.processors.size, 'processor')}, ${count(resolved.extensions.size, 'extension')}, ` +
      `${count(resolved.service.pipelines.length, 'pipeline')}`,
  );
  return EXIT_OK;
}
