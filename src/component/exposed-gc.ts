import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * A function that forces a full garbage collection, without the user starting Node with a flag:
 * `globalThis.gc` when Node runs with --expose-gc; otherwise the same function obtained at run time (the
 * flag set now applies to contexts created afterwards, and a new context hands out its `gc`).
 * Undefined when neither works.
 */
export function exposedGc(): (() => void) | undefined {
  let gc = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== 'function') {
    try {
      v8.setFlagsFromString('--expose-gc');
      gc = vm.runInNewContext('gc');
    } catch {
      gc = undefined;
    }
  }
  return typeof gc === 'function' ? () => (gc as () => void)() : undefined;
}
