#!/usr/bin/env node
// The emulator CLI: the compiled JavaScript in dist/ when it was built (`npm run build`, or `npm install`
// in a checkout through `prepare`), otherwise the TypeScript sources through tsx (a dev dependency).
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/emulator/cli.js', import.meta.url);
let runEmulatorCli;
if (existsSync(compiled)) {
  ({ runEmulatorCli } = await import(compiled.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ runEmulatorCli } = await import('../src/emulator/cli.ts'));
}
process.exitCode = await runEmulatorCli(process.argv.slice(2));
