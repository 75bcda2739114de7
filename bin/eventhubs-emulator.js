#!/usr/bin/env node
// The emulator CLI, from dist/ (or the sources through tsx in a checkout that was never built: load.js).
import { loadModule } from './load.js';

const { runEmulatorCli } = await loadModule('emulator/cli');
process.exitCode = await runEmulatorCli(process.argv.slice(2));
