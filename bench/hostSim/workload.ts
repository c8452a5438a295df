// The full-size plan as the host bench plays it: the metadata-only package of bench/planPackage.ts
// (84 benchmarks × 300 items, ~19,600 videos), planned by the product's own code (loadPackage,
// buildWorkPlan over the 13 default conditions, planFrames per video), turned into requests whose
// images are named by number so the caches can tell them apart:
//   image id = video × 2^14 + size × 2^11 + stored frame index   (< 2^29; size = the video's n-th dims)
// Two requests of one video and one condition (a "group") send the same images; two conditions at the
// same dims share the frames they both pick (the frame pipeline makes each (frame, dims) JPEG once).
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildBenchPackage } from '../planPackage';
import { loadPackage } from '../../src/core/protocols/fp/package/load';
import { readVideoMetaSync } from '../../src/core/protocols/fp/package/meta';
import { readResultsCsv } from '../../src/core/protocols/fp/package/resultsCsv';
import { buildWorkPlan } from '../../src/core/protocols/fp/plan/buildWorkPlan';
import { DEFAULT_CONDITIONS, parseCondition } from '../../src/core/protocols/fp/rules/conditions';
import { planFrames } from '../../src/core/protocols/fp/rules/plan';
import { buildPromptText } from '../../src/core/protocols/fp/rules/prompt';
import { estimateTextTokens, qwenImageTokens, qwenResizedDims } from '../../src/core/protocols/fp/rules/qwenTokens';
import { videoJobs, type VideoJob } from '../../src/core/protocols/fp/sweep/fpUnits';
import { unitKey } from '../../src/core/protocols/fp/package/unitKey';

export const FRAME_BITS = 11;
export const SIZE_BITS = 3;

/** One condition of one video: the images its requests send (shared by the group's requests). */
export interface SimGroup {
  video: number;
  condition: string;
  /** Image ids in the order sent. */
  images: Int32Array;
  width: number;
  height: number;
  /** Tokens and vision patches of the images (qwenImageTokens; 4 patches a token: merge 2 × 2). */
  imageTokens: number;
  patches: number;
}

export interface SimRequest {
  key: string;
  benchmark: string;
  /** Index of the item within its benchmark (the seed's order: benchmark → condition → item). */
  item: number;
  group: SimGroup;
  /** Prompt tokens: the images' and the text's (estimateTextTokens of the real prompt). */
  promptTokens: number;
  textTokens: number;
}

export interface SimVideo {
  index: number;
  hash: string;
  width: number;
  height: number;
  storedFrames: number;
  /** Dims of each size code (index = code). */
  sizes: { width: number; height: number }[];
  requests: SimRequest[];
  /** The product's scheduler job for this video (videoJobs: task keys, groups, costs). */
  job: VideoJob;
}

export interface SimPlan {
  videos: SimVideo[];
  requests: number;
  benchmarks: string[];
  conditions: string[];
}

export function imageId(video: number, size: number, frame: number): number {
  return (video << (SIZE_BITS + FRAME_BITS)) | (size << FRAME_BITS) | frame;
}

export function imageVideo(id: number): number {
  return id >>> (SIZE_BITS + FRAME_BITS);
}

export function imageSize(id: number): number {
  return (id >>> FRAME_BITS) & ((1 << SIZE_BITS) - 1);
}

/** Builds (or reuses, with `keep`) the package, then plans it as a run would. */
export async function buildSimPlan(keep: string | null, log: (line: string) => void): Promise<SimPlan> {
  const root = keep ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-hostsim-')));
  try {
    const marker = path.join(root, '.bench-complete');
    if (!(await fs.stat(marker).catch(() => null))) {
      const t = performance.now();
      const made = await buildBenchPackage(root);
      await fs.writeFile(marker, '');
      log(`built the full-size metadata package (${made.items} items, ${made.videos} videos) in ${((performance.now() - t) / 1000).toFixed(1)} s at ${root}`);
    }
    const pkg = await loadPackage(root);
    const csv = await readResultsCsv(pkg.layout.resultsCsv);
    const plan = await buildWorkPlan(pkg, csv, { conditions: DEFAULT_CONDITIONS, metaCache: 'off' });
    const jobs = videoJobs(plan.videos);
    const videos: SimVideo[] = [];
    let requests = 0;
    for (let v = 0; v < plan.videos.length; v++) {
      const work = plan.videos[v];
      const found = readVideoMetaSync(pkg.layout, work.hash);
      if (found.kind !== 'ok') continue;
      const meta = found.meta;
      const sizes: { width: number; height: number }[] = [];
      const groups = new Map<string, SimGroup>();
      const out: SimRequest[] = [];
      for (const u of work.units) {
        if (u.contextRefusal) continue; // refused before any image work (processor.py's length check): no cost worth modelling
        let g = groups.get(u.condition);
        if (!g) {
          const cond = parseCondition(u.condition);
          const fp = planFrames(cond, cond.kind === 'blind' ? null : meta);
          if (fp.status !== 'send') throw new Error(`internal: ${work.hash} ${u.condition} is ${fp.status}`);
          const w = fp.width ?? 0;
          const h = fp.height ?? 0;
          let size = sizes.findIndex((s) => s.width === w && s.height === h);
          if (size < 0 && fp.indices.length) {
            size = sizes.length;
            sizes.push({ width: w, height: h });
            if (size >= 1 << SIZE_BITS) throw new Error(`internal: more than ${1 << SIZE_BITS} sizes for ${work.hash}`);
          }
          const images = Int32Array.from(fp.indices, (i) => imageId(v, size, i));
          const perImage = fp.indices.length ? qwenImageTokens(w, h) : 0;
          const d = fp.indices.length ? qwenResizedDims(w, h) : { width: 0, height: 0 };
          const patchesPerImage = (d.width / 16) * (d.height / 16);
          g = {
            video: v,
            condition: u.condition,
            images,
            width: w,
            height: h,
            imageTokens: perImage * images.length,
            patches: patchesPerImage * images.length,
          };
          groups.set(u.condition, g);
        }
        const textTokens = estimateTextTokens(buildPromptText(u.item.question, u.item.options));
        const item = Number(/_q(\d+)$/.exec(u.item.item_id)?.[1] ?? 0);
        out.push({
          key: unitKey(u.benchmark, u.item.item_id, u.condition),
          benchmark: u.benchmark,
          item,
          group: g,
          promptTokens: g.imageTokens + textTokens,
          textTokens,
        });
      }
      const job = jobs[v];
      const kept = new Set(out.map((r) => r.key));
      job.tasks = job.tasks.filter((t) => kept.has(t.key));
      requests += out.length;
      videos.push({ index: v, hash: work.hash, width: meta.width, height: meta.height, storedFrames: meta.timestamps.length, sizes, requests: out, job });
    }
    return { videos, requests, benchmarks: plan.benchmarks, conditions: plan.conditions };
  } finally {
    if (!keep) await fs.rm(root, { recursive: true, force: true });
  }
}
