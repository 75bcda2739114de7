import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  LEAKY_SDK_VERSION,
  SDK_SAS_TOKEN_RENEWAL_MS,
  isSdkTokenRenewalTimer,
  unrefSdkTokenRenewalTimers,
} from '../../helpers/sdk-token-renewal-timers.ts';

const require = createRequire(import.meta.url);
/** The SDK's package folder (its exports map hides internal modules from import specifiers). */
const sdkRoot = dirname(require.resolve('@azure/event-hubs/package.json'));

test('the helper is written for the installed SDK, whose SAS renewal loop still has that length', async () => {
  assert.equal(require('@azure/event-hubs/package.json').version, LEAKY_SDK_VERSION);
  const { readFile } = await import('node:fs/promises');
  const withAuth = await readFile(join(sdkRoot, 'dist/esm/withAuth.js'), 'utf8');
  assert.match(withAuth, /timeToLiveInMs: 45 \* 60 \* 1000/);
  assert.equal(SDK_SAS_TOKEN_RENEWAL_MS, 45 * 60 * 1000);
});

test("only the SDK's token renewal timer is unref'd; a long timer of our own keeps the process alive", async () => {
  unrefSdkTokenRenewalTimers();
  const { createTimerLoop } = await import(pathToFileURL(join(sdkRoot, 'dist/esm/util/timerLoop.js')).href);
  // The SDK's loop, created the way withAuth creates it for a SAS token.
  const loop = createTimerLoop(SDK_SAS_TOKEN_RENEWAL_MS, async () => undefined);
  const ours = setTimeout(() => undefined, SDK_SAS_TOKEN_RENEWAL_MS);
  const oursLonger = setTimeout(() => undefined, 2 * SDK_SAS_TOKEN_RENEWAL_MS);
  try {
    assert.equal(ours.hasRef(), true, 'a 45-minute timer from our code is not hidden');
    assert.equal(oursLonger.hasRef(), true, 'nor is a longer one');
    assert.equal(
      refOfNewestTimer(() => loop.start()),
      false,
      "the SDK renewal timer is unref'd",
    );
    assert.equal(
      refOfNewestTimer(() => createTimerLoop(60_000, async () => undefined).start()),
      true,
      'an SDK timer loop of another length (e.g. an Entra ID token) keeps its ref',
    );
  } finally {
    loop.stop();
    clearTimeout(ours);
    clearTimeout(oursLonger);
  }
});

test("the stack test needs both the SDK's timer-loop frame and the renewal length", () => {
  const sdkStack =
    'Error\n    at wrapper (x.ts:1:1)\n' +
    '    at Object.start (C:\\n\\node_modules\\@azure\\event-hubs\\dist\\commonjs\\util\\timerLoop.js:16:21)';
  const mappedStack = 'Error\n    at Object.start (/n/node_modules/@azure/event-hubs/src/util/timerLoop.ts:39:15)';
  assert.equal(isSdkTokenRenewalTimer(SDK_SAS_TOKEN_RENEWAL_MS, sdkStack), true);
  assert.equal(isSdkTokenRenewalTimer(SDK_SAS_TOKEN_RENEWAL_MS, mappedStack), true, 'with source maps on');
  assert.equal(isSdkTokenRenewalTimer(SDK_SAS_TOKEN_RENEWAL_MS - 1, sdkStack), false);
  const ownStack = 'Error\n    at start (/n/src/util/timerLoop.js:1:1)';
  assert.equal(isSdkTokenRenewalTimer(SDK_SAS_TOKEN_RENEWAL_MS, ownStack), false, 'a timerLoop of our own');
  assert.equal(isSdkTokenRenewalTimer(SDK_SAS_TOKEN_RENEWAL_MS, undefined), false);
});

/** Runs `start`, which creates one timer through setTimeout, and returns that timer's hasRef(). */
function refOfNewestTimer(start: () => void): boolean {
  const original = globalThis.setTimeout;
  let created: NodeJS.Timeout | undefined;
  const spy = (...args: Parameters<typeof setTimeout>) => (created = original(...args));
  globalThis.setTimeout = spy as typeof setTimeout;
  try {
    start();
  } finally {
    globalThis.setTimeout = original;
  }
  assert.ok(created, 'a timer was created');
  const ref = created.hasRef();
  clearTimeout(created);
  return ref;
}
