import { EXIT_OK, EXIT_RUNTIME_FAILURE, EXIT_USAGE } from './exit-codes.ts';
import { ConfigError } from '../component/errors.ts';
import { suggest } from '../config/format-issues.ts';
import { redact, redactError } from '../component/redact.ts';
import { processIo, type CliIo } from './cli-io.ts';
import type { Components } from './components.ts';
import { UsageError } from './usage-error.ts';
import { chooseHeapLimit, type HeapLimitChoice } from './heap-limit.ts';

export const CLI_NAME = 'otelcol-azure-eventhub';

export const MAIN_HELP = `Usage: ${CLI_NAME} [command] [options]

An OpenTelemetry Collector distribution that reads Azure Event Hubs into logs, metrics and traces pipelines.

Commands:
  run          Run the pipelines of a config (the default when no command is given).
  validate     Check a config and print every problem with its dotted path.
  components   List receivers, processors, exporters, extensions and feature gates.
  checkpoints  List owners, checkpoints and lag per partition; reset checkpoints for a replay.
  replay       Send a time range of Event Hubs Capture files through the pipelines; checkpoints untouched.

Run '${CLI_NAME} <command> --help' for a command's options.

Exit codes:
  0    success
  1    runtime failure (could not start, or the graceful shutdown timed out)
  2    usage or config error (every problem is printed)
  3    refused (checkpoints reset while partitions are owned; use --force)
  130  forced exit by a second SIGINT
  143  forced exit by a second SIGTERM`;

type Command = (args: readonly string[], io: CliIo, components: Components) => Promise<number>;

// Commands and components are loaded on demand: `--help` should not wait for the Azure SDKs to load.
const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./commands/run-command.ts')).runCommand,
  validate: async () => (await import('./commands/validate-command.ts')).validateCommand,
  components: async () => (await import('./commands/components-command.ts')).componentsCommand,
  checkpoints: async () => (await import('./commands/checkpoints-command.ts')).checkpointsCommand,
  replay: async () => (await import('./commands/replay-command.ts')).replayCommand,
};

type ParsedCommand =
  | { readonly kind: 'help' | 'version' }
  /** `explicit`: the command was named; otherwise argv starts with options (or is empty) and means `run`. */
  | { readonly kind: 'command'; readonly name: string; readonly explicit: boolean; readonly args: readonly string[] };

/** What argv asks for: help, the version, or a command and its arguments. */
function parseCommand(argv: readonly string[]): ParsedCommand {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') return { kind: 'help' };
  if (first === '--version' || first === 'version') return { kind: 'version' };
  if (first !== undefined && !first.startsWith('-'))
    return { kind: 'command', name: first, explicit: true, args: rest };
  return { kind: 'command', name: 'run', explicit: false, args: argv };
}

/**
 * The CLI without the process around it: returns the exit code. Usage and config errors are printed
 * (redacted) with exit 2; anything else thrown is a runtime failure (exit 1).
 */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const parsed = parseCommand(argv);
  if (parsed.kind !== 'command') {
    io.out(parsed.kind === 'help' ? MAIN_HELP : `${CLI_NAME} ${await version()}`);
    return EXIT_OK;
  }
  const { name, explicit, args } = parsed;
  if (!Object.hasOwn(COMMANDS, name)) {
    const hint = suggest(name, Object.keys(COMMANDS));
    if (hint) {
      const help = `Run '${CLI_NAME} --help' for the commands.`;
      io.err(`${CLI_NAME}: unknown command '${redact(name)}'; did you mean '${hint}'?\n${help}`);
      return EXIT_USAGE;
    }
    io.err(`${CLI_NAME}: unknown command '${redact(name)}'\n\n${MAIN_HELP}`);
    return EXIT_USAGE;
  }
  const command = await COMMANDS[name]!();
  if (argv.length === 0) {
    io.err(`${CLI_NAME}: --config is required\n\n${MAIN_HELP}`);
    return EXIT_USAGE;
  }
  try {
    const components = io.components ?? (await (await import('./builtin-components.ts')).builtinComponents());
    return await command(args, io, components);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(redact(error.message));
      return EXIT_USAGE;
    }
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      const shown = explicit ? `${CLI_NAME} ${name}` : CLI_NAME;
      io.err(`${shown}: ${redact((error as Error).message)}\nRun '${shown} --help' for usage.`);
      return EXIT_USAGE;
    }
    io.err(`${CLI_NAME}: ${redactError(error)}`);
    return EXIT_RUNTIME_FAILURE;
  }
}

async function version(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: string;
  };
  return pkg.version ?? 'unknown';
}

/**
 * Reports an error nothing caught as one redacted JSON line and exits 1 (Node's own report may quote a connection
 * string).
 */
export function installFatalHandlers(): void {
  const fatal = (error: unknown) => {
    const line = { level: 'error', ts: new Date().toISOString(), msg: 'fatal error', error: redactError(error) };
    process.stderr.write(`${JSON.stringify(line)}\n`);
    process.exit(EXIT_RUNTIME_FAILURE);
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
}

/**
 * Entry point of the bin shim: runs `main` and exits with its code (the exit is immediate and bounded).
 * `run` goes to a worker thread with a heap limit (heap-limit.ts), other commands stay on this thread.
 */
export async function runCli(argv: readonly string[]): Promise<never> {
  installFatalHandlers();
  let code: number;
  const parsed = parseCommand(argv);
  // `run`, named or implied by options, is what runs in the heap-limited worker.
  if (parsed.kind === 'command' && parsed.name === 'run' && argv.length > 0) {
    let choice: HeapLimitChoice;
    try {
      choice = chooseHeapLimit(process.env, process.execArgv);
    } catch (error) {
      process.stderr.write(`${CLI_NAME}: ${redact((error as Error).message)}\n`);
      process.exit(EXIT_USAGE);
    }
    code =
      choice.kind === 'worker'
        ? await (await import('./run-in-worker.ts')).runInWorker(argv, choice.mib)
        : await main(argv);
  } else {
    code = await main(argv);
  }
  process.exit(code);
}
