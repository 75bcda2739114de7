#!/usr/bin/env node
// The checks of `npm run lint` that Biome's linter (biome.json, scripts/lint/*.grit) does not make:
// 1. Layering in src/:
//    a. A folder's `internal/` is private to that folder and the folders under it: src/a/x.ts may import
//       src/a/internal/y.ts, not src/b/internal/z.ts.
//    b. Only src/backends/polling imports @azure/event-hubs; only src/backends/streaming imports the AMQP
//       client (rhea-promise, rhea, @azure/core-amqp). The emulator (src/emulator) is exempt.
// 2. No cycle between the folders under src/: a folder (with everything under it) may import another only
//    if that one does not import it back, directly or around a loop. Nested folders count as their parent.
// 3. No source line over 120 characters in src/, test/, scripts/ and examples/ (TypeScript and JavaScript).
// 4. TypeScript directive comments there, as typescript-eslint's ban-ts-comment did (Biome's noTsIgnore
//    reports ts-ignore): no ts-nocheck, and ts-expect-error only with the reason after it.
// 5. No unit test (test/unit/) imports a launcher of the emulator or Azurite.
// Imports are found in the text: static `import`/`export … from` (which Biome's formatter starts on a line
// of their own), side-effect `import '…'`, and `import('…')` with a literal, outside line comments.
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

const STATIC_IMPORT = /^[ \t]*(?:import|export)\b[^;'"`]*?\bfrom\s*(['"])([^'"]+)\1/gm;
const BARE_IMPORT = /^[ \t]*import\s*(['"])([^'"]+)\1/gm;
const DYNAMIC_IMPORT = /\bimport\s*\(\s*(['"])([^'"]+)\1\s*[,)]/g;

/** Each module specifier `text` imports or re-exports, with its line number. */
function importsOf(text) {
  const found = [];
  for (const pattern of [STATIC_IMPORT, BARE_IMPORT, DYNAMIC_IMPORT]) {
    for (const m of text.matchAll(pattern)) {
      const lineStart = text.lastIndexOf('\n', m.index) + 1;
      const before = text.slice(lineStart, m.index);
      if (pattern === DYNAMIC_IMPORT && (before.includes('//') || /^\s*\*/.test(before))) continue;
      found.push({ spec: m[2], at: m.index });
    }
  }
  found.sort((a, b) => a.at - b.at);
  let line = 1;
  let counted = 0;
  for (const entry of found) {
    for (let i = text.indexOf('\n', counted); i !== -1 && i < entry.at; i = text.indexOf('\n', i + 1)) line++;
    counted = entry.at;
    entry.line = line;
  }
  return found;
}

// 1b. Which folders may import which SDK and AMQP packages (a package's subpaths count as the package).
const PACKAGE_OWNERS = [
  { packages: ['@azure/event-hubs'], owner: 'src/backends/polling' },
  {
    packages: ['rhea-promise', 'rhea', '@azure/core-amqp'],
    owner: 'src/backends/streaming',
    // The polling backend's workarounds in the AMQP stack under the SDK (a crash on cancelling a request; our
    // one-pass decoder for its deliveries).
    alsoFiles: ['src/backends/polling/internal/event-hubs-internals.ts'],
  },
];
const PACKAGE_EXEMPT = ['src/emulator'];
const inFolder = (file, folder) => file === folder || file.startsWith(`${folder}/`);
const isPackage = (spec, name) => spec === name || spec.startsWith(`${name}/`);

// 1 and 2. Layering and the folder graph of src/.
const src = resolve(root, 'src');
const show = (path) => relative(root, path).split(sep).join('/');
const folderOf = (file) => relative(src, dirname(file)).split(sep)[0] || '.';
const edges = new Map(); // folder -> Map(folder -> first import seen)
for (const file of walk(src, [])) {
  const name = show(file);
  const from = dirname(file);
  for (const { spec, line } of importsOf(readFileSync(file, 'utf8'))) {
    if (!spec.startsWith('.')) {
      if (PACKAGE_EXEMPT.some((folder) => inFolder(name, folder))) continue;
      for (const { packages, owner, alsoFiles = [] } of PACKAGE_OWNERS) {
        const pkg = packages.find((p) => isPackage(spec, p));
        if (pkg === undefined || inFolder(name, owner) || alsoFiles.includes(name)) continue;
        problems.push(
          `${name}:${line}: imports '${spec}', which only ${owner}/ may import: use the backends' interface ` +
            `(src/backends/consumer.ts) or move this code into ${owner}/`,
        );
      }
      continue;
    }
    const target = resolve(from, spec);
    const at = target.lastIndexOf(`${sep}internal${sep}`);
    if (at >= 0) {
      const owner = target.slice(0, at);
      if (from !== owner && !from.startsWith(owner + sep)) {
        problems.push(
          `${name}:${line}: imports '${spec}', which is in ${show(owner)}/internal/, private to ${show(owner)}/: ` +
            `import a top-level file of ${show(owner)}/ instead (export what you need from one)`,
        );
      }
    }
    if (!target.startsWith(src + sep)) continue;
    const a = folderOf(file);
    const b = folderOf(target);
    if (a === b) continue;
    if (!edges.has(a)) edges.set(a, new Map());
    if (!edges.get(a).has(b)) edges.get(a).set(b, `${name} imports ${spec}`);
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

// 5. Unit tests start no servers: the emulator's and Azurite's launchers belong to integration tests (the
// runner groups unit files into shared processes, and `npm run test:unit` must need nothing else).
const SERVER_LAUNCHERS = ['test/helpers/emulator.ts', 'test/helpers/azurite.ts', 'scripts/local/azurite.ts'];
function checkUnitImports(file, text) {
  for (const { spec, line } of importsOf(text)) {
    if (!spec.startsWith('.')) continue;
    const target = relative(root, resolve(dirname(file), spec))
      .split(sep)
      .join('/');
    if (SERVER_LAUNCHERS.includes(target))
      problems.push(
        `${relative(root, file)}:${line}: a unit test imports ${target}, which starts a server: move the test to ` +
          'test/integration/',
      );
  }
}

// 3. Line length: every line over MAX_LINE characters fails, naming file:line and its length.
// 4. TypeScript directives, in the same pass.
const NO_CHECK = /^\s*(?:\/\/|\/\*+|\*)\s*@ts-nocheck\b/;
const EXPECT_ERROR = /^\s*(?:\/\/|\/\*+|\*)\s*@ts-expect-error\b[\s:-]*(.*?)(?:\*\/)?\s*$/;
for (const top of ['src', 'test', 'scripts', 'examples']) {
  const dir = resolve(root, top);
  try {
    statSync(dir);
  } catch {
    continue;
  }
  for (const file of walk(dir, [])) {
    const text = readFileSync(file, 'utf8');
    if (relative(root, file).split(sep).join('/').startsWith('test/unit/')) checkUnitImports(file, text);
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      const where = `${relative(root, file)}:${i + 1}`;
      if (line.includes('@ts-')) {
        if (NO_CHECK.test(line)) problems.push(`${where}: @ts-nocheck turns off type checking: fix the errors`);
        const reason = EXPECT_ERROR.exec(line)?.[1];
        if (reason !== undefined && reason.length < 3) {
          problems.push(`${where}: @ts-expect-error without a reason: say after it why the error is expected`);
        }
      }
      if (line.length > MAX_LINE) {
        problems.push(`${where}: line of ${line.length} characters (at most ${MAX_LINE}): wrap it`);
      }
    });
  }
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(`check-layout: ${problems.length} problem(s)`);
  process.exitCode = 1;
}
