// Adds a run type to a copy of this tree the way a contributor would — its folders copied in, its one entry in
// each registry — and lists every file outside the run type's folders that the addition touched. With --check it
// also type-checks and builds the copy, so the list is of an addition that compiles.
//   npx tsx scripts/proveRunType.ts test/fixtures/runTypes/tally [--out DIR] [--check]
// The run type's folder holds runType.json (its id, where each of its folders goes, and each registry's edits:
// exact text that must be found once) and one folder per destination. test/core/runner/thirdRunType.int.test.ts
// runs the copy it makes through the product's CLI and worker.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';

const REPO = path.resolve(__dirname, '..');

const manifestSchema = z.object({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/),
  why: z.string().optional(),
  /** Source subfolder (beside runType.json) → destination folder in the tree. */
  folders: z.record(z.string()),
  registrations: z.array(z.object({ file: z.string(), edits: z.array(z.object({ find: z.string(), replace: z.string() })).min(1) })),
});
export type RunTypeManifest = z.infer<typeof manifestSchema>;

export interface TouchedFile {
  file: string;
  added: number;
  removed: number;
}

export interface ProvedCopy {
  dir: string;
  manifest: RunTypeManifest;
  /** Files the addition created or changed outside the run type's own folders. */
  outside: TouchedFile[];
  /** Files it created inside them. */
  inside: string[];
}

const git = (dir: string, args: string[]) =>
  execFileSync('git', ['-c', 'user.name=prove', '-c', 'user.email=prove@localhost', '-c', 'core.hooksPath=/dev/null', ...args], { cwd: dir, encoding: 'utf8' });

/** The tree as the working copy has it (tracked and untracked files git does not ignore), node_modules linked. */
function copyTree(dir: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  for (const f of files) {
    const from = path.join(REPO, f);
    if (!existsSync(from)) continue; // deleted in the working copy
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    cpSync(from, path.join(dir, f), { dereference: false });
  }
  symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));
}

function applyEdit(dir: string, file: string, find: string, replace: string): void {
  const p = path.join(dir, file);
  const text = readFileSync(p, 'utf8');
  const at = text.indexOf(find);
  if (at < 0 || text.indexOf(find, at + 1) >= 0) {
    throw new Error(
      `${file}: the registration expects ${JSON.stringify(find)} exactly once (found ${at < 0 ? 'none' : 'more than one'}); ` +
        'update runType.json or the registry',
    );
  }
  writeFileSync(p, text.slice(0, at) + replace + text.slice(at + find.length));
}

/** Makes the copy, adds the run type from `runTypeDir`, and says what the addition touched. */
export function addRunTypeToCopy(runTypeDir: string, out?: string): ProvedCopy {
  const src = path.resolve(runTypeDir);
  const manifest = manifestSchema.parse(JSON.parse(readFileSync(path.join(src, 'runType.json'), 'utf8')));
  const dir = out ? path.resolve(out) : mkdtempSync(path.join(os.tmpdir(), `fpsweep-add-${manifest.id}-`));
  mkdirSync(dir, { recursive: true });
  copyTree(dir);
  git(dir, ['init', '-q']);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-qm', 'before']);
  for (const [from, to] of Object.entries(manifest.folders)) {
    if (existsSync(path.join(dir, to))) throw new Error(`${to} is already in the tree: a run type's folder is its own`);
    cpSync(path.join(src, from), path.join(dir, to), { recursive: true });
  }
  for (const r of manifest.registrations) for (const e of r.edits) applyEdit(dir, r.file, e.find, e.replace);
  git(dir, ['add', '-A']);
  const own = Object.values(manifest.folders).map((f) => f.replace(/\/?$/, '/'));
  const outside: TouchedFile[] = [];
  const inside: string[] = [];
  for (const line of git(dir, ['diff', '--cached', '--numstat']).split('\n').filter(Boolean)) {
    const [added, removed, file] = line.split('\t');
    if (own.some((f) => file.startsWith(f))) inside.push(file);
    else outside.push({ file, added: Number(added), removed: Number(removed) });
  }
  return { dir, manifest, outside, inside };
}

/** Type-checks, lints (the run type's folders and the registries it touched) and builds the copy; throws with the tools' words. */
export function checkCopy(proved: ProvedCopy): void {
  const { dir } = proved;
  const run = (args: string[]) => {
    try {
      execFileSync(process.execPath, args, { cwd: dir, stdio: 'pipe', encoding: 'utf8' });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      throw new Error(`in the copy ${dir}: ${path.basename(args[0])} failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`.trimEnd());
    }
  };
  const bin = (pkg: string, file: string) => path.join(dir, 'node_modules', pkg, file);
  run([bin('typescript', 'bin/tsc'), '-p', dir, '--noEmit']);
  const linted = [...Object.values(proved.manifest.folders), ...proved.outside.map((t) => t.file).filter((f) => f.endsWith('.ts'))];
  run([bin('eslint', 'bin/eslint.js'), ...linted]);
  // The layers and the cycles (the run type imports no other, the engine does not import it): the whole graph.
  run([bin('dependency-cruiser', 'bin/dependency-cruise.mjs'), 'src', 'media/src', '--config', '.dependency-cruiser.cjs']);
  run(['esbuild.js']);
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const runTypeDir = args.find((a) => !a.startsWith('--') && args[args.indexOf(a) - 1] !== '--out');
  if (!runTypeDir) {
    process.stderr.write('usage: npx tsx scripts/proveRunType.ts RUN_TYPE_DIR [--out DIR] [--check]\n');
    process.exit(2);
  }
  const o = args.indexOf('--out');
  const proved = addRunTypeToCopy(runTypeDir, o >= 0 ? args[o + 1] : undefined);
  process.stdout.write(`run type '${proved.manifest.id}' added in ${proved.dir}\n`);
  process.stdout.write(`its folders: ${Object.values(proved.manifest.folders).join(', ')} (${proved.inside.length} files)\n`);
  process.stdout.write(`files outside them that the addition touched (${proved.outside.length}):\n`);
  for (const t of proved.outside) process.stdout.write(`  ${t.file}  +${t.added} -${t.removed}\n`);
  if (args.includes('--check')) {
    try {
      checkCopy(proved);
      process.stdout.write('the copy type-checks, lints and builds\n');
    } catch (err) {
      process.stderr.write(`${(err as Error).message}\n`);
      process.exit(1);
    }
  }
}
