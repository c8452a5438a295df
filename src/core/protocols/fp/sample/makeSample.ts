// `fpsweep sample`: a small complete run package (SPEC §1) made with ffmpeg, for tests, benchmarks
// and the README demo. Everything is decided by planSample(scale) first; the videos are encoded,
// probed, and meta.json is written from what ffprobe reports.
import { mapBounded } from '../../../runner/mapBounded';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../errors';
import { PackageLayout } from '../package/layout';
import { itemSchema, manifestRowSchema, scopeSummarySchema, videoMetaSchema, CSV_HEADER, type VideoMeta } from '../package/schemas';
import { csvHeaderLine, csvLine } from '../sweep/csvRow';
import { encodeSampleVideo, metaFromProbe, probeVideo } from './encode';
import { existingByCondition, existingRawRecords } from './existingResults';
import { planSample, type SamplePlan, type SampleVideo } from './plan';
import { writeShards } from './shards';

export interface MakeSampleOptions {
  /** The package root to create; it must be absent or empty. */
  out: string;
  /** Also extract the store to data/store/normalized (default true); false leaves only the shards. */
  extract?: boolean;
  /** Multiplies videos and items (default 1). */
  scale?: number;
  /** Add the four planted benchmarks for the findings demo (sample/planted.ts). */
  planted?: boolean;
  /** Videos encoded side by side (default: min(2, cores)). */
  concurrency?: number;
  /** Called after each video is encoded and probed. */
  onVideo?: (done: number, total: number, video: SampleVideo) => void;
}

export interface SampleSummary {
  root: string;
  scale: number;
  extracted: boolean;
  benchmarks: string[];
  itemsByBenchmark: Record<string, number>;
  items: number;
  videos: number;
  frames: number;
  shards: number;
  existingRows: number;
  seconds: number;
  /** Ground truth: what was made (videos and their traits, items with missing videos, existing rows). */
  plan: SamplePlan;
}

async function assertEmptyDir(dir: string): Promise<void> {
  try {
    const entries = await fs.readdir(dir);
    if (entries.length > 0) throw new InputError(`${dir} is not empty; choose a new folder (or --force to replace a package there)`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') throw new InputError(`${dir} is a file, not a folder`);
    throw err;
  }
}

async function writeJson(file: string, value: unknown): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, JSON.stringify(value, null, 2) + '\n');
}

async function writeJsonl(file: string, rows: readonly unknown[]): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, rows.map((r) => JSON.stringify(r) + '\n').join(''));
}

async function encodeAll(plan: SamplePlan, storeDir: string, concurrency: number, onVideo?: MakeSampleOptions['onVideo']): Promise<Map<string, VideoMeta>> {
  let done = 0;
  // Biggest first, so the two lanes finish together.
  const bySize = [...plan.videos].sort((a, b) => b.nFrames * b.width * b.height - a.nFrames * a.width * a.height);
  const metas = await mapBounded(bySize, concurrency, async (v: SampleVideo) => {
    const dir = path.join(storeDir, v.hash);
    await fs.mkdir(dir, { recursive: true });
    const file = path.join(dir, 'video.mp4');
    await encodeSampleVideo(v, file);
    const meta = videoMetaSchema.parse(metaFromProbe(v, await probeVideo(file)));
    await writeJson(path.join(dir, 'meta.json'), meta);
    onVideo?.(++done, plan.videos.length, v);
    return meta;
  });
  return new Map(metas.map((m) => [m.hash, m]));
}

export async function makeSamplePackage(opts: MakeSampleOptions): Promise<SampleSummary> {
  const started = process.hrtime.bigint();
  const root = path.resolve(opts.out);
  const extract = opts.extract ?? true;
  const plan = planSample(opts.scale ?? 1, { planted: opts.planted });
  const concurrency = Math.max(1, opts.concurrency ?? Math.min(2, os.availableParallelism()));
  await assertEmptyDir(root);
  // Built beside the target and renamed into place at the end: a failure or a kill never leaves a
  // half-made package under the target's name.
  const partial = `${root}.partial-${process.pid}-${Date.now()}`;
  try {
    const made = await build(new PackageLayout(partial), plan, extract, concurrency, opts.onVideo);
    // The target may exist as an empty folder; rmdir never removes a non-empty one.
    await fs.rmdir(root).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    await fs.rename(partial, root);
    return { ...made, root, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
  } finally {
    await fs.rm(partial, { recursive: true, force: true });
  }
}

type Built = Omit<SampleSummary, 'root' | 'seconds'>;

async function build(layout: PackageLayout, plan: SamplePlan, extract: boolean, concurrency: number, onVideo?: MakeSampleOptions['onVideo']): Promise<Built> {
  await fs.mkdir(layout.root, { recursive: true });
  // Without extraction the videos are staged beside the package and removed once shards exist.
  const storeDir = extract ? layout.storeDir : path.join(layout.root, '.sample-staging');
  const metas = await encodeAll(plan, storeDir, concurrency, onVideo);

  const itemsByBenchmark: Record<string, number> = {};
  for (const bench of plan.benchmarks) {
    const rows = plan.items.filter((it) => it.benchmark === bench).map(({ hash: _hash, missing: _missing, ...item }) => itemSchema.parse(item));
    itemsByBenchmark[bench] = rows.length;
    await writeJsonl(layout.samplesFile(bench), rows);
  }
  await writeJsonl(
    layout.manifest,
    plan.manifest.map((r) => manifestRowSchema.parse(r)),
  );
  await writeJson(
    layout.scopeSummary,
    scopeSummarySchema.parse({
      benchmarks: plan.benchmarks,
      existing_by_condition: existingByCondition(plan),
    }),
  );

  // Existing rows: raw record first, CSV row second, as the runner does.
  const raws = existingRawRecords(plan, metas);
  const rawByFile = new Map<string, typeof raws>();
  for (const r of raws) {
    const file = layout.rawFile(r.condition, r.benchmark);
    rawByFile.set(file, [...(rawByFile.get(file) ?? []), r]);
  }
  for (const [file, rows] of rawByFile) await writeJsonl(file, rows);
  await fs.mkdir(layout.resultsDir, { recursive: true });
  await fs.writeFile(layout.resultsCsv, csvHeaderLine(CSV_HEADER) + raws.map((r) => csvLine(CSV_HEADER, r)).join(''));

  const manifest = await writeShards(
    storeDir,
    plan.videos.map((v) => v.hash),
    layout.videosDir,
  );
  if (!extract) await fs.rm(storeDir, { recursive: true, force: true });

  return {
    scale: plan.scale,
    extracted: extract,
    benchmarks: plan.benchmarks,
    itemsByBenchmark,
    items: plan.items.length,
    videos: plan.videos.length,
    frames: plan.videos.reduce((a, v) => a + v.nFrames, 0),
    shards: manifest.shards.length,
    existingRows: raws.length,
    plan,
  };
}
