// Where the item inspector gets its model, in two steps (issue 36 point 1: a 582-frame item opens in under a second).
// First the item as the package's files have it, read in the extension host (`inspectItem` with the rebuild left for
// later: it reads one item's lines and stats its frame files, writes nothing; a CLI child per open cost 2.4 s of
// Node start here, bench/itemInspector.ts), like AVTime's query browser answers a click in the host
// (ARCHITECTURE.md, the seam). Then, only when frames the run sent are no longer in its store, `fpsweep inspect
// --json` in a child makes them again: decoding and writing stay out of the host. The child's model is checked with
// the core's schema. Frame files become webview URIs only when their real path lies in one of the package's two
// frame stores (the run's and the inspector's): a path in a model is data, never trusted as a place. No vscode here.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseBoundedJson } from '../../../core/io/boundedJson';
import { isInside } from '../../../core/package/paths';
import { readInspection } from '../../../core/protocols/fp/inspect/itemModel';
import { itemInspectionSchema, type ItemInspection } from '../../../core/protocols/fp/inspect/types';
import { errorLine, startCli } from '../../cli';
import { inspectorStateSchema, type InspectorState } from './inspectorMessages';

/** Which item to show, and the conditions to put first (a flip's pair, a failure row's condition). */
export interface InspectTarget {
  packageDir: string;
  benchmark: string;
  itemId: string;
  conditions: readonly string[];
}

/** What the webview keeps of a target across a reload (the package is the one followed then). */
export function inspectorState(t: InspectTarget): InspectorState {
  return { benchmark: t.benchmark, itemId: t.itemId, conditions: [...t.conditions] };
}

/** The target a reloaded panel shows again: its saved state, checked, in the package followed now; or why not. */
export function restoredInspectTarget(state: unknown, packageDir: string | undefined): InspectTarget | { refused: string } {
  const s = inspectorStateSchema.safeParse(state);
  if (!s.success) return { refused: 'its saved state is not an item inspector state' };
  if (!packageDir) return { refused: 'no run package is followed (open the package folder or set fpsweep.packagePath)' };
  return { packageDir, ...s.data };
}

/** The item at once, from the package's files in this process; frames the run no longer has stay `missing`. */
export function readInspectionHere(t: InspectTarget): Promise<ItemInspection> {
  return readInspection(t.packageDir, { benchmark: t.benchmark, itemId: t.itemId, conditions: t.conditions }, null);
}

/** How many frames of `model` the CLI would make again: missing ones of a video whose meta is known. */
export function framesToMake(model: ItemInspection): number {
  if (model.video === null) return 0;
  return model.conditions.reduce((n, c) => n + c.frames.filter((f) => f.source === 'missing').length, 0);
}

/** The item with its missing frames made again: `fpsweep inspect --json` in a child (the frame pipeline's work). */
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
