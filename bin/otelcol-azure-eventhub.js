#!/usr/bin/env node
// The collector CLI, from dist/ (or the sources through tsx in a checkout that was never built: load.js).
import { loadModule } from './load.js';

const { runCli } = await loadModule('distribution/cli');
await runCli(process.argv.slice(2));
