/**
 * The worker side of run-in-worker.ts: runs the CLI's `main` with the signals the main thread forwards,
 * then ends the thread with its exit code (the main thread exits the process with it).
 */
import { EventEmitter } from 'node:events';
import { parentPort, workerData } from 'node:worker_threads';
import { installFatalHandlers, main } from './cli.ts';
import { processIo } from './cli-io.ts';
import type { SignalMessage } from './run-in-worker.ts';

installFatalHandlers();
const signals = new EventEmitter();
parentPort?.on('message', (message: SignalMessage) => {
  if (message?.signal === 'SIGTERM' || message?.signal === 'SIGINT') signals.emit(message.signal, message.signal);
});
const { argv } = workerData as { argv: string[] };
const code = await main(argv, { ...processIo(), signals });
process.exit(code);
