/** Azurite for tests: the same launcher `npm start` uses (scripts/local/azurite.ts). */
export { startAzurite, randomName, AZURITE_ACCOUNT, AZURITE_KEY, type Azurite } from '../../scripts/local/azurite.ts';
