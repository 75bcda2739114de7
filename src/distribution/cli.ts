import { EXIT_OK, EXIT_RUNTIME_FAILURE, EXIT_USAGE } from './exit-codes.ts';
import { ConfigError } from '../component/errors.ts';
import { redact, redactError } from '../component/redact.ts';
import { processIo, type CliIo } from './cli-io.ts';
import type { Components } from './components.ts';
import { UsageError } from './usage-error.ts';
import { chooseHeapLimit, type HeapLimitChoice } from './heap-limit.ts';

export const CLI_NAME = 'otelcol-azure-eventhub';

export const MAIN_HELP = `Usage: ${CLI_NAME} [command] [options]

An OpenTelemetry Collector distribution that reads Azure Event Hubs into log pipelines.

Commands:
  run          Run the pipelines of a config (the default when no command is given).
  validate     Check a config and print every problem with its dotted path.
  components   List receivers, processors, exporters, extensions and feature gates.
  checkpoints  List owners, checkpoints and lag per partition; reset checkpoints for a replay.

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
};

/**
 * The CLI without the process around it: returns the exit code. Usage and config errors are printed
 * (redacted) with exit 2; anything else thrown is a runtime failure (exit 1).
 */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    io.out(MAIN_HELP);
    return EXIT_OK;
  }
  if (first === '--version' || first === 'version') {
    io.out(`${CLI_NAME} ${await version()}`);
    return EXIT_OK;
  }
  const isCommand = first !== undefined && !first.startsWith('-');
  if (isCommand && !Object.hasOwn(COMMANDS, first)) {
    io.err(`${CLI_NAME}: unknown command '${redact(first)}'\n\n${MAIN_HELP}`);
    return EXIT_USAGE;
  }
  const command = await (isCommand ? COMMANDS[first]! : COMMANDS.run!)();
  const args = isCommand ? rest : argv;
  if (!isCommand && argv.length === 0) {
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
      io.err(`${CLI_NAME}${isCommand ? ` ${first}` : ''}: ${redact((error as Error).message)}\nRun '${CLI_NAME}${isCommand ? ` ${first}` : ''} --help' for usage.`);
      return EXIT_USAGE;
    }
    io.err(`${CLI_NAME}: ${redactError(error)}`);
    return EXIT_RUNTIME_FAILURE;
  }
}

async function version(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}

/** Reports an error nothing caught as one redacted JSON line and exits 1 (Node's own report may quote a connection string). */
export function installFatalHandlers(): void {
  const fatal = (error: unknown) => {
    process.stderr.write(`${JSON.stringify({ level: 'error', ts: new Date().toISOString(), msg: 'fatal error', error: redactError(error) })}\n`);
    process.exit(EXIT_RUNTIME_FAILURE);
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
}

/** `run`, given as a command or implied by options; it is what runs in the heap-limited worker. */
function isRunCommand(argv: readonly string[]): boolean {
  const first = argv[0];
  if (first === undefined) return false;
  if (first === 'run') return true;
  return first.startsWith('-') && !['--help', '-h', '--version'].includes(first);
}

/**
 * Entry point of the bin shim: runs `main` and exits with its code (the exit is immediate and bounded).
 * `run` goes to a worker thread with a heap limit (heap-limit.ts), other commands stay on this thread.
 */
export async function runCli(argv: readonly string[]): Promise<never> {
  installFatalHandlers();
  let code: number;
  if (isRunCommand(argv)) {
    let choice: HeapLimitChoice;
    try {
      choice = chooseHeapLimit(process.env, process.execArgv);
    } catch (error) {
      process.stderr.write(`${CLI_NAME}: ${redact((error as Error).message)}\n`);
      process.exit(EXIT_USAGE);
    }
    code = choice.kind === 'worker' ? await (await import('./run-in-worker.ts')).runInWorker(argv, choice.mib) : await main(argv);
  } else {
    code = await main(argv);
  }
  process.exit(code);
}
