import { parseArgs } from 'node:util';
import { ConfigError } from '../../component/errors.ts';
import { createJsonLogger } from '../../telemetry/json-logger.ts';
import type { CliIo } from '../cli-io.ts';
import type { Components } from '../components.ts';
import { EXIT_FORCED_SIGINT, EXIT_FORCED_SIGTERM, EXIT_OK, EXIT_RUNTIME_FAILURE, EXIT_USAGE } from '../exit-codes.ts';
import type { ResolvedConfig } from '../resolve-config.ts';
import { Service } from '../service.ts';
import { DEFAULT_HEAP_LIMIT_MIB, HEAP_LIMIT_ENV } from '../heap-limit.ts';
import { CONFIG_OPTIONS, CONFIG_OPTIONS_HELP, gatesFromFlags, loadFromFlags } from './config-options.ts';

/** Time allowed, beyond the receivers' own shutdown_timeout, for processors and exporters to flush. 10 000 ms. */
export const EXPORTER_FLUSH_ALLOWANCE_MS = 10_000;
/** The same signal again within this many ms is a relayed copy of the first, not a second one. 1000 ms. */
export const DUPLICATE_SIGNAL_WINDOW_MS = 1_000;
/** Receivers' graceful stop when their config does not say. 30 000 ms (the receiver's default shutdown_timeout). */
export const DEFAULT_RECEIVER_SHUTDOWN_MS = 30_000;

export const RUN_HELP = `\
Usage: otelcol-azure-eventhub [run] --config URI [--config URI ...] [--set KEY::PATH=VALUE ...] [--feature-gates IDS]

Runs the pipelines of the config until SIGTERM or SIGINT. On the first signal it stops claiming
partitions, finishes in-flight batches, writes final checkpoints, releases leases and flushes the
exporters, then exits 0; a second signal exits at once (130 for SIGINT, 143 for SIGTERM); the same
signal repeated within 1 s (Ctrl-C relayed by npm, npx or tsx) counts as the first.

Options:
${CONFIG_OPTIONS_HELP}

Memory: the service runs in a worker thread whose V8 heap is capped at ${DEFAULT_HEAP_LIMIT_MIB} MiB, so garbage is
collected before the process grows (${HEAP_LIMIT_ENV} sets the cap; 0, or a --max-old-space-size
given to Node, keeps Node's own heap sizing on the main thread).

Exit codes: 0 stopped cleanly, 1 failed at run time (or the graceful stop timed out, or the heap cap was
reached), 2 invalid config or flags, 130/143 forced by a second signal.`;

/** The longest graceful stop: the slowest receiver's shutdown_timeout plus the exporter flush allowance. */
export function shutdownBudgetMs(config: ResolvedConfig): number {
  let receivers = 0;
  for (const r of config.receivers.values()) {
    const t = (r.config as { shutdown_timeout?: unknown }).shutdown_timeout;
    receivers = Math.max(receivers, typeof t === 'number' ? t : DEFAULT_RECEIVER_SHUTDOWN_MS);
  }
  return (receivers || DEFAULT_RECEIVER_SHUTDOWN_MS) + EXPORTER_FLUSH_ALLOWANCE_MS;
}

/** `run` (the default command): starts the service and resolves with the exit code once it stopped. */
export async function runCommand(args: readonly string[], io: CliIo, components: Components): Promise<number> {
  const { values } = parseArgs({ args: [...args], options: CONFIG_OPTIONS, strict: true, allowPositionals: false });
  if (values.help) {
    io.out(RUN_HELP);
    return EXIT_OK;
  }
  const featureGates = gatesFromFlags(values, io.env);
  const config = await loadFromFlags(values, io.env, components);
  const logs = config.service.telemetry.logs;
  const logger = createJsonLogger({
    level: logs.level,
    encoding: logs.encoding,
    write: (line) => io.err(line.replace(/\n$/, '')),
  });
  const signals = io.signals ?? process;

  // Listen before starting, so a signal during start is not the default "die at once".
  let onSignal: (signal: NodeJS.Signals) => void = () => {};
  const received = new Promise<NodeJS.Signals>((resolve) => (onSignal = resolve));
  const handler = (signal: NodeJS.Signals) => onSignal(signal);
  signals.on('SIGTERM', handler);
  signals.on('SIGINT', handler);
  // Every server and timer of the service is unref'ed (embedders decide their process's life); the CLI
  // is a daemon, so this one ref'ed timer keeps it alive until the shutdown finishes.
  const keepAlive = setInterval(() => {}, 1 << 30);
  try {
    let service: Service;
    try {
      service = await Service.start(config, { logger, featureGates });
    } catch (error) {
      // A component may find a config problem only when it is created (a TLS file that does not exist):
      // that is still exit 2, with the problems listed.
      if (error instanceof ConfigError) {
        logger.error('could not start: invalid configuration', { issues: error.issues.join('; ') });
        return EXIT_USAGE;
      }
      logger.error('could not start', { error });
      return EXIT_RUNTIME_FAILURE;
    }
    const first = await received;
    const firstAt = Date.now();
    const budgetMs = shutdownBudgetMs(config);
    logger.info('shutting down gracefully; send the signal again to exit at once', {
      signal: first,
      timeout_ms: budgetMs,
    });
    const forced = new Promise<number>((resolve) => {
      onSignal = (second) => {
        // A terminal's Ctrl-C reaches the whole process group, and wrappers (npm, npx, tsx) relay it
        // again: the same signal within a second is that one Ctrl-C, not a request to force the exit.
        if (second === first && Date.now() - firstAt < DUPLICATE_SIGNAL_WINDOW_MS) return;
        logger.warn('second signal: exiting without finishing the shutdown', { signal: second });
        resolve(second === 'SIGINT' ? EXIT_FORCED_SIGINT : EXIT_FORCED_SIGTERM);
      };
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<number>((resolve) => {
      timer = setTimeout(() => {
        logger.error('graceful shutdown did not finish in time', { timeout_ms: budgetMs });
        resolve(EXIT_RUNTIME_FAILURE);
      }, budgetMs);
      timer.unref();
    });
    const code = await Promise.race([service.shutdown().then(() => EXIT_OK), forced, timedOut]);
    clearTimeout(timer);
    return code;
  } finally {
    clearInterval(keepAlive);
    signals.off('SIGTERM', handler);
    signals.off('SIGINT', handler);
  }
}
