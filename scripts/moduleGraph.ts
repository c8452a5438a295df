// `npm run graph`: the module graph as dependency-cruiser reads it (.dependency-cruiser.cjs: TypeScript's resolution,
// type imports included). Prints what the structure's notes measure — the cycles between modules, the cycles between
// folders, and the edges that run up the layers (engine → run types → CLI/worker → extension/webview) — and writes a
// picture of the folders into docs/module-graph.md (a mermaid chart; GitHub and VS Code's preview draw it), and
// docs/module-graph.svg where graphviz's `dot` is installed. The pictures are generated, never edited (.gitignore).
//   npx tsx scripts/moduleGraph.ts [--no-write]
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..');
const DEPCRUISE = path.join(REPO, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const ROOTS = ['src', 'media/src'];
/** Folders drawn as one box each: a run type, an engine folder, the CLI, the worker, the extension, the webview. */
const COLLAPSE = '^(src/core/protocols/[^/]+|src/core/[^/]+|src/[^/]+|media/src)/';

interface CruisedModule {
  source: string;
  dependencies: { resolved: string; coreModule?: boolean; couldNotResolve?: boolean; dependencyTypes: string[] }[];
}

/** The layer of a module of the product, bottom up; undefined: outside them (a stand-in, a package). */
export function layerOf(file: string): number | undefined {
  if (/^src\/core\/protocols\//.test(file)) return 1;
  if (/^src\/core\//.test(file)) return 0;
  if (/^src\/(cli|worker)\//.test(file)) return 2;
  if (/^(src\/extension|media\/src)\//.test(file)) return 3;
  return undefined;
}
const LAYER_NAMES = ['engine', 'run type', 'CLI/worker', 'extension/webview'];

/** Strongly connected components of more than one node (Tarjan), each sorted; the cycles of the graph. */
export function cycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => a[0].localeCompare(b[0]));
}

function addEdge(edges: Map<string, Set<string>>, from: string, to: string): void {
  if (!edges.has(from)) edges.set(from, new Set());
  if (!edges.has(to)) edges.set(to, new Set());
  edges.get(from)!.add(to);
}

function depcruise(args: string[]): string {
  // Exit code 1..n is the count of rule violations: the graph is still printed.
  const r = spawnSync(process.execPath, [DEPCRUISE, ...ROOTS, '--config', '.dependency-cruiser.cjs', ...args], {
    cwd: REPO,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.error || r.stdout === '') throw new Error(`depcruise failed: ${r.error?.message ?? r.stderr}`);
  return r.stdout;
}

function main(): void {
  const cruised = JSON.parse(depcruise(['--output-type', 'json'])) as {
    modules: CruisedModule[];
    summary: { violations: { rule: { name: string }; from: string; to: string }[] };
  };
  const local = cruised.modules.filter((m) => layerOf(m.source) !== undefined || m.source.startsWith('src/'));
  const moduleEdges = new Map<string, Set<string>>();
  const folderEdges = new Map<string, Set<string>>();
  const up: string[] = [];
  for (const m of local) {
    for (const d of m.dependencies) {
      if (d.coreModule || d.couldNotResolve || !/^(src|media\/src)\//.test(d.resolved)) continue;
      addEdge(moduleEdges, m.source, d.resolved);
      if (path.dirname(m.source) !== path.dirname(d.resolved)) addEdge(folderEdges, path.dirname(m.source), path.dirname(d.resolved));
      const [from, to] = [layerOf(m.source), layerOf(d.resolved)];
      if (from !== undefined && to !== undefined && to > from) up.push(`${m.source} → ${d.resolved} (${LAYER_NAMES[from]} → ${LAYER_NAMES[to]})`);
    }
  }
  const moduleCycles = cycles(moduleEdges);
  const folderCycles = cycles(folderEdges);
  const print = (title: string, lines: string[]) => {
    process.stdout.write(`${title}: ${lines.length}\n`);
    for (const l of lines) process.stdout.write(`  ${l}\n`);
  };
  process.stdout.write(`${local.length} modules under ${ROOTS.join(', ')}\n`);
  print(
    'cycles between modules (type imports included)',
    moduleCycles.map((c) => c.join(' ↔ ')),
  );
  print(
    'cycles between folders',
    folderCycles.map((c) => c.join(' ↔ ')),
  );
  print('edges up the layers (engine → run type → CLI/worker → extension/webview)', up.sort());
  print(
    'rule violations (.dependency-cruiser.cjs)',
    cruised.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`),
  );

  if (process.argv.includes('--no-write')) return;
  const mermaid = depcruise(['--include-only', '^(src|media/src)/', '--collapse', COLLAPSE, '--output-type', 'mermaid']);
  const md = path.join(REPO, 'docs', 'module-graph.md');
  fs.writeFileSync(
    md,
    '# The module graph\n\nGenerated by `npm run graph` (scripts/moduleGraph.ts) from the tree as it was; never edited by hand. ' +
      'One box a folder (a run type, an engine folder, the CLI, the worker, the extension, the webview).\n\n```mermaid\n' +
      mermaid.trim() +
      '\n```\n',
  );
  process.stdout.write(`wrote ${path.relative(REPO, md)}\n`);
  if (spawnSync('dot', ['-V']).status === 0) {
    const svg = execFileSync('dot', ['-Tsvg'], {
      input: depcruise(['--include-only', '^(src|media/src)/', '--collapse', COLLAPSE, '--output-type', 'dot']),
      maxBuffer: 64 * 1024 * 1024,
    });
    fs.writeFileSync(path.join(REPO, 'docs', 'module-graph.svg'), svg);
    process.stdout.write('wrote docs/module-graph.svg\n');
  }
}

if (require.main === module) main();
