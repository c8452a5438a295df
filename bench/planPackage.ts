// A metadata-only run package of full size for bench/plan.ts: 84 benchmarks × 300 items, ~19,600
// videos' meta.json (no video bytes; video.mp4 is empty), 90,000 base rows in the results CSV.
// Durations mimic the real mix: short clips, minutes-long videos, and hour-long ones stored at 480.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { BASE_CONDITIONS } from '../src/core/protocols/fp/rules/conditions';
import { SeededRandom } from '../src/core/seededRandom';

export const N_BENCH = 84;
export const ITEMS_PER_BENCH = 300;
/** ~19,600 videos for 25,200 items: some items share a video. */
const VIDEOS_PER_BENCH = 233;
/** Benchmarks that already have the 5 base conditions in the CSV (seed §1: 60 of 84). */
const BENCH_WITH_BASE = 60;

type Kind = 'clip' | 'medium' | 'long';
/** Benchmark kinds: most are clips or minutes long; some (LVBench-like) are hour-long. */
function benchKind(b: number): Kind {
  return b % 7 === 0 ? 'long' : b % 3 === 0 ? 'medium' : 'clip';
}

function duration(kind: Kind, r: () => number): number {
  const x = r();
  if (kind === 'clip') return x < 0.15 ? 5 + 11 * r() : 16 + 60 * r(); // 15% too_short (≤ 32 frames)
  if (kind === 'medium') return 60 + 900 * r();
  return x < 0.3 ? 600 + 1200 * r() : 1800 + 5400 * r(); // 70% beyond 30 min: stored at 480
}

function dims(shortSide: number, r: () => number): [number, number] {
  const x = r();
  const wide = (num: number, den: number) => Math.round((shortSide * num) / den / 2) * 2;
  if (x < 0.75) return [wide(16, 9), shortSide];
  if (x < 0.87) return [wide(4, 3), shortSide];
  if (x < 0.95) return [shortSide, wide(16, 9)]; // portrait
  return [shortSide, shortSide];
}

/** Stored at 2 fps, or 1024 frames spread over the video when that is fewer. */
function storedTimestamps(dur: number, start: number): number[] {
  const n2 = Math.floor(dur * 2);
  const n = Math.max(1, Math.min(1024, n2));
  const step = n2 > 1024 ? dur / 1024 : 0.5;
  return Array.from({ length: n }, (_, i) => Math.round((start + i * step) * 1e6) / 1e6);
}

export async function buildBenchPackage(root: string): Promise<{ videos: number; items: number; csvRows: number }> {
  const random = new SeededRandom(20260201); // mulberry32, as everywhere (core/seededRandom.ts)
  const r = () => random.next();
  await fs.mkdir(path.join(root, 'items', 'samples'), { recursive: true });
  await fs.mkdir(path.join(root, 'manifest'), { recursive: true });
  await fs.mkdir(path.join(root, 'results'), { recursive: true });
  const store = path.join(root, 'data', 'store', 'normalized');
  await fs.mkdir(store, { recursive: true });
  const benchmarks = Array.from({ length: N_BENCH }, (_, b) => `Bench${String(b).padStart(2, '0')}`);
  const manifest: string[] = [];
  const csv: string[] = ['benchmark,item_id,condition,status,pred,answer,correct,n_frames,prompt_tokens,latency_s,ts'];
  const metas: { hash: string; text: string }[] = [];
  let items = 0;
  for (let b = 0; b < N_BENCH; b++) {
    const bench = benchmarks[b];
    const kind = benchKind(b);
    const lines: string[] = [];
    for (let v = 0; v < VIDEOS_PER_BENCH; v++) {
      const hash = `${bench.toLowerCase()}${String(v).padStart(4, '0')}${Math.floor(r() * 1e9).toString(16)}`;
      const dur = duration(kind, r);
      const [width, height] = dims(dur > 1800 ? 480 : 720, r);
      const ts = storedTimestamps(dur, r() < 0.1 ? 0.04 : 0); // a few streams start late
      metas.push({ hash, text: JSON.stringify({ hash, width, height, duration_s: dur, n_frames: ts.length, timestamps: ts, too_short: ts.length <= 32 }) });
      // ~1 in 200 videos has no manifest row (seed: 96 of 25,193 items have no video)
      if (r() >= 0.005) manifest.push(JSON.stringify({ benchmark: bench, video_id: `vid${v}`, hash }));
    }
    for (let i = 0; i < ITEMS_PER_BENCH; i++) {
      const item = {
        item_id: `${bench}_q${i}`,
        benchmark: bench,
        video_id: `vid${i % VIDEOS_PER_BENCH}`,
        question: `In the video, what does the person do right after event ${i}? Consider the whole clip carefully.`,
        options: ['Picks up the cup', 'Opens the door', 'Sits down on the chair', 'Waves at the camera'],
        answer: 'ABCD'[i % 4],
      };
      lines.push(JSON.stringify(item));
      items++;
      if (b < BENCH_WITH_BASE) {
        for (const c of BASE_CONDITIONS)
          csv.push(`${bench},${item.item_id},${c},ok,B,${item.answer},${item.answer === 'B' ? 1 : 0},32,3100,1.234,2026-01-01T00:00:00Z`);
      }
    }
    await fs.writeFile(path.join(root, 'items', 'samples', `${bench}.jsonl`), lines.join('\n') + '\n');
  }
  await fs.writeFile(path.join(root, 'items', 'scope_summary.json'), JSON.stringify({ benchmarks, existing_by_condition: {} }));
  await fs.writeFile(path.join(root, 'manifest', 'manifest_subset.jsonl'), manifest.join('\n') + '\n');
  await fs.writeFile(path.join(root, 'results', 'conditions_results.csv'), csv.join('\n') + '\n');
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < metas.length) {
        const m = metas[next++];
        await fs.mkdir(path.join(store, m.hash));
        await fs.writeFile(path.join(store, m.hash, 'meta.json'), m.text);
        await fs.writeFile(path.join(store, m.hash, 'video.mp4'), '');
      }
    }),
  );
  return { videos: metas.length, items, csvRows: csv.length - 1 };
}
