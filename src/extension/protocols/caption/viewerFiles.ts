// The caption viewer's reads (no vscode: tested under plain mocha): the video directories of a videos root, and one
// video's model (core/protocols/caption/viewerModel.ts) with each clip's file checked on disk to be a regular file
// whose real path stays inside the video directory (a symlink out is refused, as segments.ts refuses it) before the
// panel turns it into a webview URI; each clip's MP3 sidecar (the sound the viewer plays, issue 36 point 2) is checked
// the same way. A stem from the webview is a plain name of the root's directories, nothing else.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { sidecarOf } from '../../../core/clips/segments';
import { isInside } from '../../../core/package/paths';
import { buildViewerModel, type VideoViewerModel } from '../../../core/protocols/caption/viewerModel';
import { viewerStateSchema } from './viewerMessages';

/** The direct child directories of `root` holding a segments.json, by name (state folders, dot-names, left out). */
export async function listVideoStems(root: string): Promise<string[]> {
  const entries = await fs.readdir(root, { withFileTypes: true }).catch(() => []);
  const stems = await Promise.all(
    entries
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map(async (e) => ((await fs.stat(path.join(root, e.name, 'segments.json')).catch(() => null))?.isFile() ? e.name : null)),
  );
  return stems.filter((s): s is string => s !== null).sort();
}

export interface ViewerVideo {
  model: VideoViewerModel;
  /** Each clip's absolute real path, or null when it is refused or missing (the model's `problems` say why). */
  clipFiles: (string | null)[];
  /** Each clip's MP3 sidecar (absolute real path), or null when the clip has none to play (`problems` say why). */
  sidecarFiles: (string | null)[];
}

const isPlainName = (s: string) => s !== '.' && s !== '..' && s.length > 0 && !/[\\/\0]/.test(s);

/** One video of the root: its files read, its clips checked; an error in words when it cannot be shown at all. */
export async function readViewerVideo(root: string, stem: string): Promise<ViewerVideo | { error: string }> {
  if (!isPlainName(stem)) return { error: `'${stem}' is not a video directory name` };
  const dir = path.join(root, stem);
  const segments = await fs.readFile(path.join(dir, 'segments.json'), 'utf8').catch((err: Error) => err);
  if (segments instanceof Error) return { error: `${stem}: cannot read segments.json: ${segments.message}` };
  const captions = await fs
    .readFile(path.join(dir, 'captions_merged.json'), 'utf8')
    .catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? null : err));
  const built = buildViewerModel(stem, segments, captions instanceof Error ? null : captions);
  if ('error' in built) return built;
  if (captions instanceof Error) {
    built.captioned = true;
    built.problems.push(`${stem}: cannot read captions_merged.json: ${captions.message}`);
  }
  const realDir = await fs.realpath(dir);
  const checked = async (index: number, rel: string, what: string): Promise<string | null> => {
    const why = await clipProblem(realDir, rel);
    if (typeof why === 'string') {
      built.problems.push(`${stem} segment ${index}: ${what}${why}`);
      return null;
    }
    return why.file;
  };
  const clipFiles = await Promise.all(built.clips.map((c) => (c.clipPath === null ? null : checked(c.index, c.clipPath, ''))));
  // A clip that cannot play has no sound to play either; a missing sidecar leaves the clip's own track.
  const sidecarFiles = await Promise.all(
    built.clips.map((c, i) => (c.clipPath === null || clipFiles[i] === null ? null : checked(c.index, sidecarOf(c.clipPath), "the clip's MP3 sidecar: "))),
  );
  return { model: built, clipFiles, sidecarFiles };
}

/** The clip's real path when it is a regular file inside `realDir`, else why not. */
async function clipProblem(realDir: string, rel: string): Promise<{ file: string } | string> {
  const real = await fs.realpath(path.join(realDir, rel)).catch(() => null);
  if (real === null) return `${rel} does not exist`;
  if (!isInside(realDir, real) || real === realDir) return `${rel} resolves outside the video directory (${real})`;
  const st = await fs.stat(real);
  return st.isFile() ? { file: real } : `${rel} is not a regular file`;
}

/**
 * Where a viewer VS Code restores after a reload may go: the state its webview kept is the webview's word, so it is
 * checked again (the schema, an absolute root whose real path still holds a video directory, not shown already) before
 * the panel reads anything; else why not, in words for the log.
 */
export async function restoredViewerTarget(
  state: unknown,
  isShown: (realRoot: string) => boolean,
): Promise<{ root: string; stem: string | null } | { refused: string }> {
  const s = viewerStateSchema.safeParse(state);
  if (!s.success) return { refused: 'its saved state is not a viewer state' };
  if (!path.isAbsolute(s.data.root)) return { refused: `${s.data.root} is not an absolute path` };
  const root = await fs.realpath(s.data.root).catch(() => null);
  if (root === null) return { refused: `${s.data.root} is gone` };
  if (isShown(root)) return { refused: `${root} is shown already` };
  if ((await listVideoStems(root)).length === 0) return { refused: `${root} holds no video directory now` };
  return { root, stem: s.data.stem };
}
