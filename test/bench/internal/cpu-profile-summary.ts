/**
 * Summarises a V8 `.cpuprofile` (written by `node --cpu-prof`, one file per thread) as self time per
 * category (OTLP serialisation, rhea, GC, decode, ...) and the functions with the most self time.
 * A function without a script (a V8 builtin or native code such as `JSON.parse` or a string write) counts
 * toward the category of its nearest caller that has one, so its time lands where it was spent for.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Sampled time, idle excluded, in ms. */
  readonly busyMs: number;
  /** Sampled time the thread was idle (waiting in its event loop), in ms. */
  readonly idleMs: number;
  /** Share of busy time per category, largest first, in %. */
  readonly categories: ReadonlyArray<{ readonly category: string; readonly percent: number }>;
  /** Functions with the most self time, largest first. */
  readonly topFunctions: ReadonlyArray<{ readonly name: string; readonly category: string; readonly percent: number }>;
}

/** Categories by script URL, first match wins; URLs are matched after `\` → `/`. */
const URL_CATEGORIES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\/node_modules\/rhea\//, 'rhea (AMQP framing, message codec)'],
  [/\/node_modules\/(rhea-promise|@azure\/core-amqp)\//, 'AMQP client (rhea-promise, core-amqp)'],
  [/\/node_modules\/@azure\/event-hubs\//, 'Event Hubs SDK'],
  [/\/node_modules\/@azure\//, 'Azure storage and core (leases, checkpoints)'],
  // Before the dist|src patterns below: its files live under node_modules/fast-xml-parser/src/.
  [/\/node_modules\/fast-xml-parser\//, 'XML parsing (storage responses)'],
  [
    /\/node_modules\/(@opentelemetry\/otlp-transformer|protobufjs|@protobufjs)\//,
    'OTLP serialisation (otlp-transformer, protobufjs)',
  ],
  [/\/node_modules\/@opentelemetry\//, 'OpenTelemetry SDK and exporter (other)'],
  [/\/(dist|src)\/decode\//, 'decode (azure format)'],
  [/\/(dist|src)\/(pipeline|exporters)\//, 'our pipeline and exporter adapters'],
  [/\/(dist|src)\/backends\//, 'our backends'],
  [/\/(dist|src)\//, 'our receiver and other code'],
  [/^node:(zlib|internal\/zlib)/, 'zlib (JavaScript side)'],
  [
    /^node:(_http|http|https|net|stream|internal\/streams|internal\/http|internal\/stream_base)/,
    'HTTP, sockets, streams',
  ],
  [/^node:/, 'Node internals (other)'],
  [/\/node_modules\//, 'other dependencies'],
];

function categoryOf(frame: CallFrame, inherited: string): string {
  if (frame.functionName === '(garbage collector)') return 'GC';
  if (frame.functionName === '(idle)') return '(idle)';
  if (frame.functionName === '(program)') return 'V8 and native, unattributed (program)';
  const url = frame.url.replace(/\\/g, '/');
  if (url === '') return inherited;
  for (const [pattern, category] of URL_CATEGORIES) if (pattern.test(url)) return category;
  return 'other';
}

/** Reads and summarises one profile; `top` is how many functions to list. */
export function summariseCpuProfile(path: string, top = 12): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  // Categories flow from caller to callee for frames without a script.
  const category = new Map<number, string>();
  const childIds = new Set(profile.nodes.flatMap((n) => n.children ?? []));
  const stack: Array<[number, string]> = profile.nodes
    .filter((n) => !childIds.has(n.id))
    .map((n) => [n.id, 'V8 and native, unattributed (program)']);
  while (stack.length > 0) {
    const [id, inherited] = stack.pop()!;
    const node = byId.get(id)!;
    const own = categoryOf(node.callFrame, inherited);
    category.set(id, own);
    for (const child of node.children ?? []) stack.push([child, own]);
  }
  const perCategory = new Map<string, number>();
  const perFunction = new Map<string, { category: string; us: number }>();
  let idleUs = 0;
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const cat = category.get(id) ?? 'other';
    if (cat === '(idle)') {
      idleUs += us;
      continue;
    }
    busyUs += us;
    perCategory.set(cat, (perCategory.get(cat) ?? 0) + us);
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url
      ? `${url.replace(/^.*\/node_modules\//, '').replace(/^.*\/(dist|src)\//, '$1/')}:${lineNumber + 1}`
      : 'native';
    const name = `${functionName || '(anonymous)'} ${where}`;
    const entry = perFunction.get(name) ?? { category: cat, us: 0 };
    entry.us += us;
    perFunction.set(name, entry);
  }
  const percent = (us: number): number => Math.round((us / Math.max(1, busyUs)) * 1000) / 10;
  return {
    busyMs: Math.round(busyUs / 1000),
    idleMs: Math.round(idleUs / 1000),
    categories: [...perCategory].sort((a, b) => b[1] - a[1]).map(([c, us]) => ({ category: c, percent: percent(us) })),
    topFunctions: [...perFunction]
      .sort((a, b) => b[1].us - a[1].us)
      .slice(0, top)
      .map(([name, e]) => ({ name, category: e.category, percent: percent(e.us) })),
  };
}
