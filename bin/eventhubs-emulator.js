#!/usr/bin/env node
// The emulator CLI is TypeScript run through tsx (no build step): `register()` installs tsx's ESM loader
// hooks in this process (Node >= 20.6), then the CLI module is imported normally.
import { register } from 'tsx/esm/api';

register();
const { runEmulatorCli } = await import('../src/emulator/cli.ts');
process.exitCode = await runEmulatorCli(process.argv.slice(2));
