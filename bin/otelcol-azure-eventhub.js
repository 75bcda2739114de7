#!/usr/bin/env node
// The CLI is TypeScript run through tsx (no build step). `register()` installs tsx's ESM loader hooks
// in this process (Node >= 20.6 supports module.register), then the CLI module is imported normally.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/distribution/cli.ts');
await runCli(process.argv.slice(2));
