// Where the item inspector gets its model: `fpsweep inspect --json` in a child process (the seam every computed FP
// view goes through: a 582-frame rebuild never runs on the extension host), checked with the core's schema. The frame
// files it names become webview URIs only when their real path lies in one of the package's two frame stores (the
// run's and the inspector's): a path in a printed model is data, never trusted as a place. No vscode here (mocha).
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseBoundedJson } from '../../../core/io/boundedJson';
import { isInside } from '../../../core/package/paths';
import { itemInspectionSchema, itemListSchema, type ItemInspection, type ItemList } from '../../../core/protocols/fp/inspect/types';
import { errorLine, startCli } from '../../cli';

/** Which item to show, and the conditions to put first (a flip's pair, a failure row's condition). */
export interface InspectTarget {
  packageDir: string;
  benchmark: string;
  itemId: string;
  conditions: readonly string[];
}

export async function loadInspection(distDir: string, env: Record<string, string>, t: InspectTarget): Promise<ItemInspection> {
  const args = ['--json', '--package', t.packageDir, '--benchmark', t.benchmark, '--item', t.itemId];
  if (t.conditions.length) args.push('--conditions', t.conditions.join(','));
  const r = await startCli({ distDir, verb: 'inspect', args, env, cwd: t.packageDir }).done;
  if (r.code !== 0) throw new Error(`fpsweep inspect failed (exit ${r.code ?? r.signal}): ${errorLine(r.stderr)}`);
  let json: unknown;
  try {
    json = parseBoundedJson(r.stdout);
  } catch {
    throw new Error('fpsweep inspect printed no JSON');
  }
  const parsed = itemInspectionSchema.safeParse(json);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new Error(`fpsweep inspect printed a model this extension does not understand (${i.path.join('.')}: ${i.message})`);
  }
  return parsed.data;
}

/**
 * The package's frame stores by real path (.fpsweep/frames, .fpsweep/inspect-frames): the panel's resource roots.
 * The state folder is made when missing, so that its real path exists before the first rebuild.
 */
export async function frameStoreRoots(packageDir: string): Promise<string[]> {
  const state = path.join(packageDir, '.fpsweep');
  await fs.mkdir(state, { recursive: true });
  const real = await fs.realpath(state);
  return [path.join(real, 'frames'), path.join(real, 'inspect-frames')];
}

/** Each frame's file, by condition, when its real path is a file inside `roots`; else null (said in `problems`). */
export async function checkedFrameFiles(model: ItemInspection, roots: readonly string[]): Promise<(string | null)[][]> {
  return Promise.all(
    model.conditions.map((c) =>
      Promise.all(
        c.frames.map(async (f) => {
          if (f.file === null) return null;
          const real = await fs.realpath(f.file).catch(() => null);
          if (real !== null && roots.some((r) => isInside(r, real)) && (await fs.stat(real)).isFile()) return real;
          c.problems.push(`frame ${f.index}: ${f.file} is not a file of the package's frame stores; not shown`);
          return null;
        }),
      ),
    ),
  );
}

/** A benchmark's items with their answer under `condition` (`fpsweep inspect … --condition C --json`), to pick one. */
export async function loadItemList(distDir: string, env: Record<string, string>, packageDir: string, benchmark: string, condition: string): Promise<ItemList> {
  const args = ['--json', '--package', packageDir, '--benchmark', benchmark, '--condition', condition];
  const r = await startCli({ distDir, verb: 'inspect', args, env, cwd: packageDir }).done;
  if (r.code !== 0) throw new Error(`fpsweep inspect failed (exit ${r.code ?? r.signal}): ${errorLine(r.stderr)}`);
  const parsed = itemListSchema.safeParse(parseBoundedJson(r.stdout));
  if (!parsed.success) throw new Error('fpsweep inspect printed an item list this extension does not understand');
  return parsed.data;
}
