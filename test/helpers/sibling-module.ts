import { fileURLToPath } from 'node:url';

/**
 * A module next to the caller, to run in a child process or a worker: `name.ts` through tsx when the caller
 * runs from the sources, `name.js` with plain node when it runs compiled (`npm test` runs the tests from
 * .test-build/, see scripts/build-tests.mjs). `path` is the file, `execArgv` what node needs before it.
 */
export function siblingModule(callerUrl: string, name: string): { path: string; url: URL; execArgv: string[] } {
  const fromSource = callerUrl.endsWith('.ts');
  const url = new URL(`${name}${fromSource ? '.ts' : '.js'}`, callerUrl);
  return { path: fileURLToPath(url), url, execArgv: fromSource ? ['--import', 'tsx'] : [] };
}
