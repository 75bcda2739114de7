#!/usr/bin/env node
// Layout checks that eslint does not make (run by `npm run lint`):
// 1. No cycle between the folders under src/: a folder (with everything under it) may import another only
//    if that one does not import it back, directly or around a loop. Nested folders count as their parent.
// 2. No source line over 120 characters in src/, test/, scripts/ and examples/ (TypeScript and JavaScript).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const MAX_LINE = 120;
const root = process.cwd();
const problems = [];

function walk(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.(ts|mts|js|mjs|cjs)$/.test(name)) out.push(path);
  }
  return out;
}

// 1. Folder graph of src/.
const src = resolve(root, 'src');
const folderOf = (file) => relative(src, dirname(file)).split(sep)[0] || '.';
const edges = new Map(); // folder -> Map(folder -> first import seen)
for (const file of walk(src, [])) {
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const target = resolve(dirname(file), m[1]);
    if (!target.startsWith(src + sep)) continue;
    const a = folderOf(file);
    const b = folderOf(target);
    if (a === b) continue;
    if (!edges.has(a)) edges.set(a, new Map());
    if (!edges.get(a).has(b)) edges.get(a).set(b, `${relative(root, file)} imports ${m[1]}`);
  }
}
// Tarjan's strongly connected components: any component of two or more folders is a cycle.
let index = 0;
const stack = [];
const onStack = new Set();
const idx = new Map();
const low = new Map();
function connect(v) {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  onStack.add(v);
  for (const w of edges.get(v)?.keys() ?? []) {
    if (!idx.has(w)) {
      connect(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) !== idx.get(v)) return;
  const cycle = [];
  let w;
  do {
    w = stack.pop();
    onStack.delete(w);
    cycle.push(w);
  } while (w !== v);
  if (cycle.length < 2) return;
  const inside = new Set(cycle);
  const why = [];
  for (const a of cycle)
    for (const [b, seen] of edges.get(a) ?? []) if (inside.has(b)) why.push(`  src/${a} -> src/${b}: ${seen}`);
  problems.push(
    `folders import each other around a loop: ${cycle.map((f) => `src/${f}`).join(', ')}\n${why.join('\n')}\n` +
      '  Move what both need into the lower folder (or component/), so imports go one way.',
  );
}
for (const v of edges.keys()) if (!idx.has(v)) connect(v);

// 2. Line length: every line over MAX_LINE characters fails, naming file:line and its length.
for (const top of ['src', 'test', 'scripts', 'examples']) {
  const dir = resolve(root, top);
  try {
    statSync(dir);
  } catch {
    continue;
  }
  for (const file of walk(dir, [])) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (line.length <= MAX_LINE) return;
      problems.push(
        `${relative(root, file)}:${i + 1}: line of ${line.length} characters (at most ${MAX_LINE}): wrap it`,
      );
    });
  }
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(`check-layout: ${problems.length} problem(s)`);
  process.exitCode = 1;
}
