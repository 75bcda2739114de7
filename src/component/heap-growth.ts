import v8 from 'node:v8';

/**
 * How far V8 lets the old generation grow past its live data before the next full collection, set from
 * inside a running process. V8 sizes the next collection's limit from the live data times a growing
 * factor, up to 4× when its heap limit is large (it sizes that from the machine's memory): draining a
 * backlog, garbage then piles up to several times what the receiver holds (docs/benchmarks.md, "Receiver
 * memory"). `--max-old-space-size` would shrink the factor, but V8 takes it only when an isolate is
 * created; `--heap-growing-percent` (heap-controller.cc, V8 11.3 in Node 20) replaces the factor and is
 * read at every full collection, so setting it at run time takes effect in the running process.
 *
 * V8 flags belong to the process: the factor applies to every thread's heap, the host program's too.
 * Node 20 lists the flag in `node --v8-options`; test/unit/component/heap-growth.test.ts fails if a Node
 * release drops it.
 */

/** The factor the memory guard asks for: the next collection comes at 1.5× the live data. 50 %. */
export const GUARD_HEAP_GROWING_PERCENT = 50;

const FLAG = '--heap-growing-percent';
/** V8's own value: 0, its dynamic factor. */
const V8_DEFAULT_PERCENT = 0;

let holders = 0;

export interface HeapGrowthOptions {
  /** Default `v8.setFlagsFromString`. */
  readonly setFlags?: (flags: string) => void;
  /** The process's Node flags. Default `process.execArgv` and `NODE_OPTIONS`. */
  readonly nodeFlags?: readonly string[];
}

/** Whether the process was started with its own growing factor, which then stays in force. */
export function hasOwnHeapGrowth(
  nodeFlags: readonly string[] = [...process.execArgv, process.env.NODE_OPTIONS ?? ''],
): boolean {
  return nodeFlags.some((arg) => /(^|\s)--heap[-_]growing[-_]percent(=|\s|$)/.test(arg));
}

/**
 * Sets V8's growing factor to `percent` for as long as at least one holder keeps it (several receivers
 * in one process share the setting); returns the release function, which restores V8's dynamic factor
 * when the last holder lets go. Returns undefined, changing nothing, when the process was started with
 * `--heap-growing-percent` of its own.
 */
export function holdHeapGrowth(percent: number, options: HeapGrowthOptions = {}): (() => void) | undefined {
  if (hasOwnHeapGrowth(options.nodeFlags)) return undefined;
  const setFlags = options.setFlags ?? ((flags: string) => v8.setFlagsFromString(flags));
  if (holders++ === 0) setFlags(`${FLAG}=${percent}`);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holders === 0) setFlags(`${FLAG}=${V8_DEFAULT_PERCENT}`);
  };
}
