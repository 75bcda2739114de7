/**
 * A known leak of @azure/event-hubs 6.0.4, made harmless in test processes and nothing else.
 *
 * Each time a partition receiver (re)connects, the SDK starts a token-renewal loop (partitionReceiver.js
 * `connect`: `state.authLoop = await withAuth(...)`) without stopping the loop it started before, and
 * `close()` stops only the newest. For SAS credentials the loop's timer is 45 minutes (withAuth.js
 * `getSharedKeyBasedToken`: `timeToLiveInMs: 45 * 60 * 1000`, scheduled by util/timerLoop.js
 * `createTimerLoop` with `setTimeout`). So a test whose receiver was detached or whose connection dropped
 * leaves a 45-minute timer behind, which keeps the test process alive after its tests end.
 *
 * Only timers of exactly that length whose creation stack passes through the SDK's timerLoop.js are
 * unref'd (the stack is read only for timers of that length, so other timers cost nothing). Every other
 * timer, of any length, keeps its ref: a leak in this project's code still keeps the process alive.
 */
export const LEAKY_SDK_VERSION = '6.0.4';
/** The SDK's SAS token renewal interval (withAuth.js). */
export const SDK_SAS_TOKEN_RENEWAL_MS = 45 * 60 * 1000;
/**
 * The SDK's timer-loop module as a stack frame names it: its ESM or CommonJS build, or its TypeScript
 * source when source maps are on (tsx turns them on, and the SDK ships its maps).
 */
const SDK_TIMER_LOOP_FRAME =
  /\/@azure\/event-hubs\/(?:dist\/(?:esm|commonjs)\/util\/timerLoop\.js|src\/util\/timerLoop\.ts):/;

/** Whether a timer of `ms` created with this stack is the SDK's token renewal timer. */
export function isSdkTokenRenewalTimer(ms: unknown, stack: string | undefined): boolean {
  if (ms !== SDK_SAS_TOKEN_RENEWAL_MS || stack === undefined) return false;
  return SDK_TIMER_LOOP_FRAME.test(stack.replaceAll('\\', '/'));
}

let installed = false;

/** Makes the SDK's token renewal timers not hold the process open (idempotent, process-wide). */
export function unrefSdkTokenRenewalTimers(): void {
  if (installed) return;
  installed = true;
  const original = globalThis.setTimeout;
  const wrapper = function (this: unknown, handler: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) {
    const timer = original(handler, ms, ...args);
    if (ms === SDK_SAS_TOKEN_RENEWAL_MS && isSdkTokenRenewalTimer(ms, new Error().stack)) timer.unref();
    return timer;
  };
  Object.defineProperties(wrapper, Object.getOwnPropertyDescriptors(original));
  globalThis.setTimeout = wrapper as unknown as typeof setTimeout;
}
