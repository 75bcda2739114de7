/**
 * `eventhubs-emulator`: starts the emulator from flags or a Docker emulator config, prints one line with
 * the connection string once ready (a second one for AMQP over WebSockets with `--websocket-port`), and
 * exits cleanly on SIGINT / SIGTERM. Bad flags or config: a clear
 * message on stderr and exit code 2; a failure to listen: exit code 1.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { CliUsageError, USAGE, parseCliArgs } from './cli-args.ts';
import { EmulatorConfigError, hubsFromDockerConfig } from './docker-config.ts';
import { startEmulator } from './index.ts';
import { Namespace } from './internal/namespace.ts';
import { tierQuotas } from './tier-quotas.ts';
import type { EmulatorOptions } from './types.ts';

export const EXIT_USAGE = 2;
export const EXIT_FAILURE = 1;

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new EmulatorConfigError(
      `${what}: cannot read '${path}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** Resolves the options from the command line (reads the config and TLS files). */
export function optionsFromArgs(argv: string[]): { options: EmulatorOptions; help: boolean } {
  const args = parseCliArgs(argv);
  const options = { ...args.options };
  const quotas = tierQuotas(options.tier, options.capacityUnits);
  if (args.configFile) {
    let doc: unknown;
    try {
      doc = JSON.parse(readText(args.configFile, '--config'));
    } catch (err) {
      if (err instanceof EmulatorConfigError) throw err;
      throw new EmulatorConfigError(`--config: '${args.configFile}' is not valid JSON: ${(err as Error).message}`);
    }
    options.hubs = [...hubsFromDockerConfig(doc, quotas.partitionsPerHub), ...(options.hubs ?? [])];
  }
  // A dry run of the namespace checks every hub against the tier's quotas before anything listens.
  const namespace = new Namespace(options.consumerGroups ?? [], quotas);
  for (const hub of options.hubs ?? []) {
    if (namespace.get(hub.name)) throw new EmulatorConfigError(`hub '${hub.name}' is declared twice`);
    try {
      namespace.add(hub);
    } catch (err) {
      throw new EmulatorConfigError((err as Error).message);
    }
  }
  if (args.tlsCertFile && args.tlsKeyFile) {
    options.tls = { cert: readText(args.tlsCertFile, '--tls-cert'), key: readText(args.tlsKeyFile, '--tls-key') };
  }
  return { options, help: args.help };
}

export async function runEmulatorCli(argv: string[]): Promise<number> {
  let resolved: { options: EmulatorOptions; help: boolean };
  try {
    resolved = optionsFromArgs(argv);
  } catch (err) {
    if (err instanceof CliUsageError || err instanceof EmulatorConfigError) {
      process.stderr.write(`eventhubs-emulator: ${err.message}\n\n${err instanceof CliUsageError ? USAGE : ''}`);
      return EXIT_USAGE;
    }
    throw err;
  }
  if (resolved.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  let emulator;
  try {
    emulator = await startEmulator({
      ...resolved.options,
      onProtocolError: (message) =>
        process.stderr.write(`eventhubs-emulator: client protocol error, connection closed: ${message}\n`),
    });
  } catch (err) {
    // Options were validated above, so what is left is the environment (port in use, bad TLS material).
    process.stderr.write(`eventhubs-emulator: cannot start: ${(err as Error).message}\n`);
    return EXIT_FAILURE;
  }
  const lines = [emulator.connectionString()];
  // Line 2: the same namespace over WebSockets (its endpoint names the WebSocket port).
  if (emulator.websocketPort !== undefined) lines.push(emulator.connectionString(undefined, { websockets: true }));
  // A key the user supplied stays out of the output; the well-known default key is public.
  const hideKey = (cs: string): string => cs.replace(/SharedAccessKey=[^;]*/, 'SharedAccessKey=<your --sas-key value>');
  const shown = resolved.options.sasKeys ? lines.map(hideKey) : lines;
  if (emulator.websocketPort !== undefined && !resolved.options.tls) {
    const note = 'WebSockets without --tls-cert/--tls-key are plain ws://; the Azure SDKs connect with wss:// only';
    process.stderr.write(`eventhubs-emulator: ${note}\n`);
  }
  // Listen for the stop signals before saying we are ready: a supervisor may signal as soon as it reads the
  // line, and a signal that comes first would end the process with the default action (no clean stop).
  const stopRequested = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.stdout.write(`${shown.join('\n')}\n`);
  await stopRequested;
  await emulator.stop();
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await runEmulatorCli(process.argv.slice(2));
}
