#!/usr/bin/env node
// The collector CLI. It runs the compiled JavaScript in dist/ (`npm run build`; `npm install` in a checkout
// builds it through `prepare`). A checkout that was never built runs the TypeScript sources through tsx
// instead (a dev dependency), at the cost of about 70 MiB of memory and a slower start.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/distribution/cli.js', import.meta.url);
let runCli;
if (existsSync(compiled)) {
  ({ runCli } = await import(compiled.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ runCli } = await import('../src/distribution/cli.ts'));
}
await runCli(process.argv.slice(2));
