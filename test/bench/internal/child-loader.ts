/**
 * How a bench starts its child processes: the way the bench itself runs. `npm run bench` runs the benches as
 * the JavaScript `tsc` compiled into .test-build/ (the same output as the package's dist/), because tsx's
 * on-the-fly transform is not what users run: it keeps function names by calling a helper each time a
 * function is created, so every closure made per batch or per record costs that call too (the `azure` decode
 * of the library bench's mix: 9.2-9.3 µs per event from tsx, 8.7-9.0 built; best of 50 rounds, 2026-11-28).
 * `node --import tsx test/bench/x.bench.ts` still runs a bench from its sources; its children then run under
 * tsx too.
 */
import { fileURLToPath } from 'node:url';

/** Whether this run loads the TypeScript sources (under tsx) rather than the compiled JavaScript. */
export const RUNS_FROM_SOURCE = import.meta.url.endsWith('.ts');

/** Node arguments a child needs to load what this run loads: tsx's loader from sources, nothing compiled. */
export const CHILD_EXEC_ARGV: readonly string[] = RUNS_FROM_SOURCE ? ['--import', 'tsx'] : [];

/** The file of a module named by its source path (`./child.ts`) relative to `base`, as this run loads it. */
export function childModulePath(sourceSpecifier: string, base: string | URL): string {
  const specifier = RUNS_FROM_SOURCE ? sourceSpecifier : sourceSpecifier.replace(/\.ts$/, '.js');
  return fileURLToPath(new URL(specifier, base));
}
