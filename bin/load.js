// Shared by the bins: imports a module of this package from the compiled JavaScript in dist/ (`npm run
// build`; `npm install` in a checkout builds it through `prepare`). A checkout that was never built
// imports the TypeScript source through tsx instead (a dev dependency), at the cost of about 70 MiB of
// memory and a slower start.
import { existsSync } from 'node:fs';

/** `path` is relative to src/ and dist/, without extension (e.g. `distribution/cli`). */
export async function loadModule(path) {
  const compiled = new URL(`../dist/${path}.js`, import.meta.url);
  if (existsSync(compiled)) return import(compiled.href);
  const { register } = await import('tsx/esm/api');
  register();
  return import(new URL(`../src/${path}.ts`, import.meta.url).href);
}
