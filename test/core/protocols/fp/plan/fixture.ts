// A small hand-built run package in a temp dir: items, manifest, meta.json files (no videos are
// decoded by the plan, so video.mp4 is an empty placeholder), and optionally a results CSV.
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface FixtureVideo {
  hash: string;
  width: number;
  height: number;
  nFrames: number;
  /** Write meta.json / video.mp4 (default true). */
  meta?: boolean | 'invalid';
  mp4?: boolean;
}

export interface FixtureItem {
  item_id: string;
  video_id: string;
  /** Hash of the manifest row; undefined = no manifest row. */
  hash?: string;
}

export async function tempDir(prefix = 'fpsweep-test-'): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), prefix));
}

export function timestamps(n: number, fps = 2): number[] {
  return Array.from({ length: n }, (_, i) => Math.round((i / fps) * 1000) / 1000);
}

export function itemLine(bench: string, it: { item_id: string; video_id: string }): string {
  return JSON.stringify({
    item_id: it.item_id,
    benchmark: bench,
    video_id: it.video_id,
    question: `What happens in ${it.item_id}?`,
    options: ['one', 'two', 'three', 'four'],
    answer: 'B',
  });
}

export async function writeVideo(root: string, v: FixtureVideo): Promise<void> {
  const dir = path.join(root, 'data', 'store', 'normalized', v.hash);
  await fs.mkdir(dir, { recursive: true });
  if (v.mp4 !== false) await fs.writeFile(path.join(dir, 'video.mp4'), '');
  if (v.meta === false) return;
  const ts = timestamps(v.nFrames);
  const meta = {
    hash: v.hash,
    width: v.width,
    height: v.height,
    duration_s: v.nFrames / 2,
    n_frames: v.nFrames,
    timestamps: v.meta === 'invalid' ? ts.slice(1) : ts,
    too_short: v.nFrames <= 32,
  };
  await fs.writeFile(path.join(dir, 'meta.json'), JSON.stringify(meta));
}

export async function writePackage(
  root: string,
  spec: {
    benchmarks: Record<string, FixtureItem[]>;
    videos: FixtureVideo[];
    csv?: string;
    scope?: boolean;
  },
): Promise<void> {
  await fs.mkdir(path.join(root, 'items', 'samples'), { recursive: true });
  await fs.mkdir(path.join(root, 'manifest'), { recursive: true });
  const manifest: string[] = [];
  for (const [bench, items] of Object.entries(spec.benchmarks)) {
    await fs.writeFile(path.join(root, 'items', 'samples', `${bench}.jsonl`), items.map((it) => itemLine(bench, it)).join('\n') + '\n');
    for (const it of items) {
      if (it.hash) manifest.push(JSON.stringify({ benchmark: bench, video_id: it.video_id, hash: it.hash }));
    }
  }
  await fs.writeFile(path.join(root, 'manifest', 'manifest_subset.jsonl'), manifest.join('\n') + '\n');
  if (spec.scope !== false) {
    await fs.writeFile(path.join(root, 'items', 'scope_summary.json'), JSON.stringify({ benchmarks: Object.keys(spec.benchmarks), existing_by_condition: {} }));
  }
  for (const v of spec.videos) await writeVideo(root, v);
  if (spec.csv !== undefined) {
    await fs.mkdir(path.join(root, 'results'), { recursive: true });
    await fs.writeFile(path.join(root, 'results', 'conditions_results.csv'), spec.csv);
  }
}
