/**
 * Azurite for tests: the launcher `npm start` uses (scripts/local/azurite.ts), or the instance the test
 * runner shares between test files. `node scripts/run-tests.mjs` starts one Azurite for the whole run and
 * names its port in TEST_SHARED_AZURITE_PORT: starting one costs about 1.5 s of CPU, and some 80 starts
 * made up a tenth of the suite's CPU. Tests keep to containers with random names (`randomName`), so they
 * do not see each other's blobs. A test that needs storage to itself (one that stops it, restarts it on
 * its data, or tests the launcher) asks for `own: true`.
 */
import {
  azuriteAt,
  startAzurite as launchAzurite,
  type Azurite,
  type AzuriteOptions,
} from '../../scripts/local/azurite.ts';

export { randomName, AZURITE_ACCOUNT, AZURITE_KEY, type Azurite } from '../../scripts/local/azurite.ts';

/** The environment variable through which run-tests.mjs shares its Azurite's port. */
export const SHARED_AZURITE_ENV = 'TEST_SHARED_AZURITE_PORT';

export async function startAzurite(options: AzuriteOptions & { readonly own?: boolean } = {}): Promise<Azurite> {
  const shared = Number(process.env[SHARED_AZURITE_ENV]);
  const ownNeeded = options.own || options.location !== undefined || options.port !== undefined;
  if (!ownNeeded && Number.isInteger(shared) && shared > 0) {
    // Stopping is the runner's business: the next test file still uses it.
    return { ...azuriteAt(shared), stop: async () => undefined };
  }
  const { own: _own, ...launch } = options;
  return launchAzurite(launch);
}
