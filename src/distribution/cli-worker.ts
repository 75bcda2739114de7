/**
 * The worker side of run-in-worker.ts: runs the CLI's `main` with the signals the main thread forwards,
 * then ends the thread with its exit code (the main thread exits the process with it).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { installFatalHandlers, main } from './cli.ts';
import { processIo } from './cli-io.ts';
import { forwardedSignals } from './run-in-worker.ts';

installFatalHandlers();
const signals = forwardedSignals(parentPort!, (code) => process.exit(code));
const { argv } = workerData as { argv: string[] };
const code = await main(argv, { ...processIo(), signals });
process.exit(code);
