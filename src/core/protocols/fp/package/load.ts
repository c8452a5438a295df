// The run package's inputs in memory: items per benchmark, the (benchmark, video_id) → hash manifest,
// the scope summary, and every problem met on the way (file:line; never silently skipped).
import { promises as fs } from 'node:fs';
import { InputError, type LineProblem } from '../../../errors';
import { PackageLayout } from './layout';
import { isPlainName } from '../../../package/names';
import { readJsonl, describeZodError } from '../../../package/jsonl';
import { itemSchema, manifestRowSchema, scopeSummarySchema, type Item, type ScopeSummary } from './schemas';
import { describeJsonError, parseBoundedJson } from '../../../io/boundedJson';

export interface LoadedPackage {
  layout: PackageLayout;
  /** The benchmarks loaded, in package order (scope_summary order, else file-name order). */
  benchmarks: string[];
  /** Every benchmark the package has (before the filter). */
  allBenchmarks: string[];
  /** Items of each loaded benchmark in file order; invalid lines and duplicates left out (see problems). */
  items: Map<string, Item[]>;
  /** benchmark → video_id → hash (all benchmarks of the manifest, first row wins). */
  manifest: Map<string, Map<string, string>>;
  scope: ScopeSummary | null;
  problems: LineProblem[];
}

export interface LoadOptions {
  /** Restrict to these benchmarks; a name the package does not have is an InputError. */
  benchmarks?: readonly string[];
}

const ITEM_EXPECTED = 'an item line {"item_id", "benchmark", "video_id", "question", "options": [..], "answer": "A".."Z"}';
const MANIFEST_EXPECTED = 'a manifest line {"benchmark", "video_id", "hash"}';

/** The hash of one item's video, or undefined when the manifest has no row for it. */
export function hashOf(pkg: Pick<LoadedPackage, 'manifest'>, benchmark: string, videoId: string): string | undefined {
  return pkg.manifest.get(benchmark)?.get(videoId);
}

async function readScope(layout: PackageLayout, problems: LineProblem[]): Promise<ScopeSummary | null> {
  let text: string;
  try {
    text = await fs.readFile(layout.scopeSummary, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let json: unknown;
  try {
    json = parseBoundedJson(text);
  } catch (err) {
    problems.push({
      file: layout.scopeSummary,
      line: 1,
      message: `${describeJsonError(err)}; the benchmark list is taken from items/samples/ instead`,
    });
    return null;
  }
  const parsed = scopeSummarySchema.safeParse(json);
  if (!parsed.success) {
    problems.push({
      file: layout.scopeSummary,
      line: 1,
      message:
        `${describeZodError(parsed.error)}; ` +
        `expected {"benchmarks": [...], "existing_by_condition": {...}}; the benchmark list is taken from items/samples/ instead`,
    });
    return null;
  }
  return parsed.data;
}

async function benchmarkFiles(layout: PackageLayout): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(layout.samplesDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new InputError(`${layout.samplesDir} does not exist: is ${layout.root} a run package?`);
    }
    throw err;
  }
  return names
    .filter((n) => n.endsWith('.jsonl'))
    .map((n) => n.slice(0, -'.jsonl'.length))
    .sort();
}

async function readManifest(layout: PackageLayout, problems: LineProblem[]): Promise<Map<string, Map<string, string>>> {
  const manifest = new Map<string, Map<string, string>>();
  let res;
  try {
    res = await readJsonl(layout.manifest, manifestRowSchema, { expected: MANIFEST_EXPECTED });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      problems.push({ file: layout.manifest, line: 0, message: 'missing: no item has a video (every item will fail with no_video)' });
      return manifest;
    }
    throw err;
  }
  problems.push(...res.problems);
  for (const { line, value } of res.records) {
    let byVideo = manifest.get(value.benchmark);
    if (!byVideo) manifest.set(value.benchmark, (byVideo = new Map()));
    const prev = byVideo.get(value.video_id);
    if (prev === undefined) byVideo.set(value.video_id, value.hash);
    else if (prev !== value.hash) {
      problems.push({
        file: layout.manifest,
        line,
        message: `duplicate row for (${value.benchmark}, ${value.video_id}) with another hash '${value.hash}'; the first ('${prev}') is kept`,
      });
    }
  }
  return manifest;
}

async function readItems(layout: PackageLayout, bench: string, problems: LineProblem[]): Promise<Item[]> {
  const file = layout.samplesFile(bench);
  let res;
  try {
    res = await readJsonl(file, itemSchema, { expected: ITEM_EXPECTED });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      problems.push({ file, line: 0, message: `missing: ${bench} is listed in items/scope_summary.json but has no items file` });
      return [];
    }
    throw err;
  }
  problems.push(...res.problems);
  const items: Item[] = [];
  const seen = new Map<string, number>();
  for (const { line, value } of res.records) {
    if (value.benchmark !== bench) {
      problems.push({ file, line, message: `item ${value.item_id} says benchmark '${value.benchmark}' but is in ${bench}.jsonl; left out` });
      continue;
    }
    const first = seen.get(value.item_id);
    if (first !== undefined) {
      problems.push({ file, line, message: `duplicate item_id '${value.item_id}' (first on line ${first}); the first is kept` });
      continue;
    }
    seen.set(value.item_id, line);
    items.push(value);
  }
  return items;
}

/** Loads a run package's inputs (items, manifest, scope). Data problems go to `problems`. */
export async function loadPackage(root: string | PackageLayout, opts: LoadOptions = {}): Promise<LoadedPackage> {
  const layout = typeof root === 'string' ? new PackageLayout(root) : root;
  const problems: LineProblem[] = [];
  const scope = await readScope(layout, problems);
  const files = await benchmarkFiles(layout);
  let allBenchmarks: string[];
  if (scope) {
    allBenchmarks = scope.benchmarks.filter((b, i) => scope.benchmarks.indexOf(b) === i);
    const listed = new Set(allBenchmarks);
    for (const f of files) {
      if (!listed.has(f)) {
        problems.push({ file: `${layout.samplesDir}/${f}.jsonl`, line: 0, message: `${f} is not listed in items/scope_summary.json; not loaded` });
      }
    }
  } else {
    allBenchmarks = [];
    for (const f of files) {
      if (isPlainName(f)) allBenchmarks.push(f);
      else problems.push({ file: `${layout.samplesDir}/${f}.jsonl`, line: 0, message: `benchmark name '${f}' is not a plain name; not loaded` });
    }
  }
  let benchmarks = allBenchmarks;
  if (opts.benchmarks) {
    const known = new Set(allBenchmarks);
    const unknown = opts.benchmarks.filter((b) => !known.has(b));
    if (unknown.length) {
      throw new InputError(`unknown benchmark(s) ${unknown.join(', ')}; the package has: ${allBenchmarks.join(', ') || '(none)'}`);
    }
    const wanted = new Set(opts.benchmarks);
    benchmarks = allBenchmarks.filter((b) => wanted.has(b));
  }
  const manifest = await readManifest(layout, problems);
  const items = new Map<string, Item[]>();
  for (const b of benchmarks) items.set(b, await readItems(layout, b, problems));
  return { layout, benchmarks, allBenchmarks, items, manifest, scope, problems };
}
