// Frame pipeline benchmark (not a test):
//   npx tsx bench/frames.ts [--scale N] [--source sample|natural] [--pool N] [--threads N] [--raw-budget MiB] [--naive-frames N] [--keep] [--package DIR]
//                           [--phases a,b,c,d] [--json FILE] [--workload-json FILE] [--prepare-only --package DIR] [--help]
// On more than 4 cores, run it as `UV_THREADPOOL_SIZE=<cores> npx tsx bench/frames.ts …`: tsx starts libuv's pool
// before this file runs, so the sizing fpsweep's own entry points do (threadPool.ts) cannot happen here.
// --keep leaves the work folder (its pkg/ is the package); --package DIR reuses such a package (same --scale)
// instead of making one (the natural package takes minutes to encode). --prepare-only --package DIR makes the
// package in DIR and stops. --phases runs only some of (a)-(d); --json FILE writes the figures as JSON;
// --workload-json FILE writes each video's distinct (index, width, height) JPEGs, the workload of (a) and (d),
// for bench/device/opencv_baseline.py. bench/device/ runs all of it on a borrowed 16-core host.
//
// Workload: every (item, condition) of the default condition list (SPEC §2) that sends frames, over
// every item of a sample package (`fpsweep sample` at --scale; or, with --source natural, the same
// package shape with videos of busy 720p content, closer to real footage in decode cost). Frames
// counted = Σ over requests of the frames that request sends (what the servers receive).
//
//  (a) this pipeline: FramePipeline.prepareAhead over one job per video, empty JPEG store, pool --pool.
//  (b) naive per-request path, as a per-request runner does: for each request, for each selected
//      frame, `ffmpeg -ss <t> -i video -frames:v 1` (seek + decode), then the same sharp resize + JPEG;
//      --pool requests at a time. It is slow, so it runs on a seeded random sample of requests and
//      stops after --naive-frames seeks (all lanes together); its rate is frames/s over that sample.
//  (c) decode limit: `ffmpeg -i video.mp4 -f null -` once per distinct video, --pool at a time; its
//      rate is the same frame count as (a) divided by its wall time, so a/c = t_c / t_a.
//  (d) floor: (c) + each distinct JPEG made once (the same sharp resize + JPEG as (a), from raw frames
//      already in memory, decoded beforehand outside the clock, up to 64 sharp calls in flight): what (a)
//      must pay at least, since (a) decodes every frame once and makes each distinct JPEG once. Its CPU is
//      the sum of both; its wall time max(t_c, t_jpeg, CPU / cores), the best any schedule of that work
//      could do on these cores (t_c + t_jpeg, the two one after the other, is in the JSON as serial_wall_s).
//  (b)'s seeks that give no frame even after one re-seek (the last frames of some natural videos) are
//  counted as empty seeks (output and JSON), not thrown. Each phase's row and JSON are written as it ends.
// All three in one run, same machine state. CPU seconds (this process + its reaped children) are
// printed too: on a shared machine the CPU ratio is steadier than the wall-clock one.
// Targets: a/b ≥ 5, a/c ≥ 0.7.
//
// Where (a)'s CPU goes (natural scale-1 package, 2 shared cores; bench lines split ffmpeg from node):
// - ffmpeg: 60-62 CPU s against (c)'s 53-55 for the same decode. The extra 6-7 s: the rgb24 conversion
//   (~1.4 s), the rawvideo encoder's copy of each selected frame (~1.5 s), socket writes (~3 s).
// - node: ~30 CPU s, of which sharp ~26 (7,244 JPEGs at ~3.3 ms: ~1.2 ms fixed per sharp call even for a
//   tiny image, thread hand-offs between libuv and libvips workers included, which cost ~18% more in this
//   VM than when pinned to one CPU; a whole-frame memmove inside libvips, seen in perf; Lanczos-3 itself) and ~4 s
//   reading frames off the socket.
// Removed since the first profile: 14 ffprobe runs (~2.5 s; the size is now checked by a crop inside the
// ffmpeg run) and one 32 KiB write per chunk of a raw frame (-avioflags direct: ~5 s of ffmpeg + node).
// Tried without gain: ffmpeg -threads 2 (lower utilisation), pool 2 with -threads 1, glibc malloc
// tunables (mmap/trim thresholds), jemalloc, UV_THREADPOOL_SIZE 2, fewer sharp calls in flight, a smaller
// raw-frame budget. So (a) ≈ decode + ~35 s and a/c ≈ 0.6 (CPU) / 0.62-0.67 (wall) on this machine.
// Measured apart (one 1024-frame 720p video, ffmpeg -threads 1): moving a frame costs ~1.8 ms of CPU here —
// the rawvideo copy ~0.4, the socket write ~0.8, node's read ~0.6 (43 reads a frame with the default
// 208 KiB socket buffer; a 4 MiB one, set from python, cut the reader to ~0.4 ms and not ffmpeg; TCP
// loopback with send_buffer_size was worse). sharp: resizing a 64x36 image costs ~1.1 ms more than not
// resizing it (the Lanczos masks and the ops built per call); 8 frames stacked in one resize, padded so
// that the bytes are identical (checked), save ~0.45 ms a frame, far from the ~8 CPU s 0.7 needs here.
// pool 4 (2 cores) keeps fewer cores busy (1.62-1.71) and gives a/c 0.54-0.56, ffmpeg threads 1 or auto.
import { promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import {
  FramePipeline,
  GiB,
  MiB,
  decodeSelectedFrames,
  defaultPoolSize,
  encodeJpegFile,
  jpegPipeline,
  resolveOptions,
  type FrameRequest,
  type PipelineStats,
  type VideoJob,
} from '../src/core/protocols/fp/frames';
import { ByteBudget } from '../src/core/protocols/fp/frames/limits';
import { PackageLayout } from '../src/core/protocols/fp/package/layout';
import { videoMetaSchema, type VideoMeta } from '../src/core/protocols/fp/package/schemas';
import { DEFAULT_CONDITIONS, parseCondition, planFrames } from '../src/core/protocols/fp/rules';
import { makeSamplePackage, planSample, type SamplePlan } from '../src/core/protocols/fp/sample';
import { SeededRandom } from '../src/core/seededRandom';

const loadExeca = () => import('execa').then((m) => m.execa);

interface Args {
  scale: number;
  source: 'sample' | 'natural';
  pool: number;
  /** ffmpeg decoder threads per video in (a); 0 = ffmpeg's choice; unset = the pipeline's default for the pool. */
  threads: number | undefined;
  /** Raw-frame budget in MiB; unset = the pipeline's default for the pool. */
  rawBudgetMiB: number | undefined;
  naiveFrames: number;
  keep: boolean;
  package: string | null;
  prepareOnly: boolean;
  phases: Set<string>;
  json: string | null;
  workloadJson: string | null;
}

function parse(): Args {
  const { values } = parseArgs({
    options: {
      scale: { type: 'string', default: '1' },
      source: { type: 'string', default: 'sample' },
      pool: { type: 'string' },
      threads: { type: 'string' },
      'raw-budget': { type: 'string' },
      'naive-frames': { type: 'string', default: '400' },
      keep: { type: 'boolean', default: false },
      package: { type: 'string' },
      'prepare-only': { type: 'boolean', default: false },
      phases: { type: 'string', default: 'a,b,c,d' },
      json: { type: 'string' },
      'workload-json': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    // The usage is this file's opening comment.
    const head = readFileSync(__filename, 'utf8').split('\n');
    console.log(
      head
        .slice(
          0,
          head.findIndex((l) => !l.startsWith('//')),
        )
        .map((l) => l.replace(/^\/\/ ?/, ''))
        .join('\n'),
    );
    process.exit(0);
  }
  const source = values.source;
  if (source !== 'sample' && source !== 'natural') throw new Error('--source is sample or natural');
  return {
    scale: Number(values.scale),
    source,
    pool: values.pool ? Number(values.pool) : defaultPoolSize(),
    threads: values.threads === undefined ? undefined : Number(values.threads),
    rawBudgetMiB: values['raw-budget'] === undefined ? undefined : Number(values['raw-budget']),
    naiveFrames: Number(values['naive-frames']),
    keep: Boolean(values.keep),
    package: values.package ? path.resolve(values.package) : null,
    prepareOnly: Boolean(values['prepare-only']),
    phases: parsePhases(values.phases),
    json: values.json ? path.resolve(values.json) : null,
    workloadJson: values['workload-json'] ? path.resolve(values['workload-json']) : null,
  };
}

function parsePhases(list: string): Set<string> {
  const phases = new Set(
    list
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
  );
  const unknown = [...phases].filter((p) => !['a', 'b', 'c', 'd'].includes(p));
  if (unknown.length || phases.size === 0) throw new Error(`--phases is a comma list of a, b, c, d; got ${list}`);
  return phases;
}

/** CPU seconds of this process and of its finished children (/proc/self/stat utime + stime, cutime + cstime). */
function cpuSeconds(): { self: number; children: number } {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  const ticks = (a: number, b: number) => (Number(fields[a]) + Number(fields[b])) / 100; // USER_HZ is 100 on Linux
  return { self: ticks(11, 12), children: ticks(13, 14) };
}

interface Timed<T> {
  value: T;
  wall: number;
  /** CPU seconds in all, and the part spent in child processes (ffmpeg). */
  cpu: number;
  childCpu: number;
}

async function timed<T>(fn: () => Promise<T>): Promise<Timed<T>> {
  const cpu0 = cpuSeconds();
  const t0 = process.hrtime.bigint();
  const value = await fn();
  const cpu1 = cpuSeconds();
  const childCpu = cpu1.children - cpu0.children;
  return { value, wall: Number(process.hrtime.bigint() - t0) / 1e9, cpu: cpu1.self - cpu0.self + childCpu, childCpu };
}

/** Runs `work` over `inputs`, `limit` at a time. */
async function lanes<T>(inputs: readonly T[], limit: number, work: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, inputs.length) }, async () => {
      while (next < inputs.length) await work(inputs[next++]);
    }),
  );
}

/** Package with the sample's shape; --source natural re-encodes each video from busy 720p content. */
async function preparePackage(args: Args, root: string): Promise<SamplePlan> {
  const summary = await makeSamplePackage({ out: root, scale: args.scale, concurrency: os.availableParallelism() });
  if (args.source === 'natural') {
    const layout = new PackageLayout(root);
    const execa = await loadExeca();
    await lanes(summary.plan.videos, Math.max(1, os.availableParallelism()), async (v) => {
      // testsrc2 + temporal noise at ~90 KB per 720p frame: decode cost like real footage (the sample's
      // flat bands decode almost for free). Same size, frame count and timestamps as planned.
      const file = layout.videoFile(v.hash);
      const tmp = `${file}.natural.mp4`;
      const setpts = `settb=1/1000,setpts=${v.startMs}+N*${v.spacingMs}+${v.jitterMs}*mod(N\\,3)`;
      await execa('ffmpeg', [
        '-hide_banner',
        '-loglevel',
        'error',
        '-y',
        '-f',
        'lavfi',
        '-i',
        `testsrc2=size=${v.width}x${v.height}:rate=2,noise=alls=5:allf=t`,
        '-frames:v',
        String(v.nFrames),
        '-vf',
        setpts,
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-crf',
        '28',
        '-g',
        '20',
        '-pix_fmt',
        'yuv420p',
        '-fps_mode',
        'passthrough',
        '-r',
        '1000',
        '-video_track_timescale',
        '1000',
        tmp,
      ]);
      await fs.rename(tmp, file);
    });
  }
  return summary.plan;
}

interface Workload {
  jobs: VideoJob[];
  requests: Array<{ job: VideoJob; meta: VideoMeta; req: FrameRequest }>;
  frames: number;
}

async function buildWorkload(root: string, plan: SamplePlan): Promise<Workload> {
  const layout = new PackageLayout(root);
  const metas = new Map<string, VideoMeta>();
  const byVideo = new Map<string, FrameRequest[]>();
  for (const item of plan.items) {
    if (!item.hash || item.missing) continue;
    let meta = metas.get(item.hash);
    if (!meta) {
      meta = videoMetaSchema.parse(JSON.parse(await fs.readFile(layout.metaFile(item.hash), 'utf8'))) as VideoMeta;
      metas.set(item.hash, meta);
    }
    for (const c of DEFAULT_CONDITIONS) {
      const cond = parseCondition(c);
      if (cond.kind === 'blind') continue;
      const fp = planFrames(cond, meta);
      if (fp.status !== 'send' || fp.width === null || fp.height === null || fp.indices.length === 0) continue;
      const list = byVideo.get(item.hash) ?? [];
      list.push({ key: `${item.benchmark}/${item.item_id}/${c}`, indices: fp.indices, width: fp.width, height: fp.height });
      byVideo.set(item.hash, list);
    }
  }
  const jobs: VideoJob[] = [];
  const requests: Workload['requests'] = [];
  for (const [hash, reqs] of byVideo) {
    const meta = metas.get(hash)!;
    const job: VideoJob = { hash, videoPath: layout.videoFile(hash), meta, requests: reqs };
    jobs.push(job);
    for (const req of reqs) requests.push({ job, meta, req });
  }
  // Longest videos first: the pool's tail is then short (as the runner's scheduler orders work).
  jobs.sort((a, b) => b.meta.n_frames - a.meta.n_frames);
  return { jobs, requests, frames: requests.reduce((a, r) => a + r.req.indices.length, 0) };
}

/** Seeks in (b) that gave no frame and were made again 0.25 s earlier. */
let naiveRetries = 0;
/** Seeks in (b) that gave no frame even after that re-seek: recorded (output and JSON), no JPEG made. */
let naiveEmptySeeks = 0;

/** (b): one seek + decode per selected frame, then the same resize + JPEG. Returns the JPEGs made. */
async function naiveRequest(meta: VideoMeta, videoPath: string, req: FrameRequest, outDir: string, budget: () => boolean): Promise<number> {
  const execa = await loadExeca();
  let k = 0;
  for (const index of req.indices) {
    if (!budget()) break; // the rate is what is measured: stop at the frame budget, even mid-request
    const t = meta.timestamps[index];
    const seek = async (at: number) =>
      Buffer.from(
        (
          await execa(
            'ffmpeg',
            [
              '-hide_banner',
              '-loglevel',
              'error',
              '-nostdin',
              '-ss',
              at.toFixed(3),
              '-i',
              videoPath,
              '-frames:v',
              '1',
              '-f',
              'rawvideo',
              '-pix_fmt',
              'rgb24',
              'pipe:1',
            ],
            { encoding: 'buffer', stdin: 'ignore' },
          )
        ).stdout as Uint8Array,
      );
    let rgb = await seek(t);
    // A seek to (near) the last frame can yield no frame at all (seen on the natural package at 16 cores):
    // a per-request runner would seek again, a little earlier; the retry is counted in (b)'s cost.
    if (rgb.length === 0) {
      naiveRetries++;
      rgb = await seek(Math.max(0, t - 0.25));
    }
    // Still nothing (the last frames of some natural videos, 16 cores): a per-request runner would have no
    // frame to send here. Counted as an empty seek; its time stays in (b)'s wall clock, no frame is served.
    if (rgb.length === 0) {
      naiveEmptySeeks++;
      continue;
    }
    if (rgb.length !== meta.width * meta.height * 3)
      throw new Error(`naive decode of ${videoPath} at ${t}s gave ${rgb.length} bytes, not one ${meta.width}x${meta.height} RGB frame`);
    await jpegPipeline(rgb, meta, req).toFile(path.join(outDir, `${k++}.jpg`));
  }
  return k;
}

/** The distinct JPEGs of a video, as (a) makes them: one per (index, width, height). */
function distinctJpegs(job: VideoJob): Array<{ index: number; width: number; height: number }> {
  const seen = new Map<string, { index: number; width: number; height: number }>();
  for (const r of job.requests) {
    for (const index of r.indices) seen.set(`${index}_${r.width}x${r.height}`, { index, width: r.width, height: r.height });
  }
  return [...seen.values()].sort((x, y) => x.index - y.index || x.width - y.width);
}

/** The workload of (a) and (d) for another implementation (bench/device/opencv_baseline.py). */
async function writeWorkload(file: string, root: string, w: Workload): Promise<void> {
  const videos = w.jobs.map((j) => ({
    path: path.relative(root, j.videoPath),
    width: j.meta.width,
    height: j.meta.height,
    n_frames: j.meta.n_frames,
    jpegs: distinctJpegs(j).map((d) => [d.index, d.width, d.height]),
  }));
  await fs.writeFile(file, JSON.stringify({ frames_served: w.frames, jpegs: videos.reduce((a, v) => a + v.jpegs.length, 0), videos }));
}

/**
 * (d)'s JPEG part: raw frames decoded beforehand (not timed), in batches of up to `batchBytes`, then each
 * distinct JPEG made once from memory, `inFlight` sharp calls at a time; only the encodes are timed.
 */
async function jpegsOnce(w: Workload, outDir: string, ffmpegThreads: number, batchBytes: number, inFlight: number) {
  // The untimed decodes use ffmpegThreads (0: ffmpeg's frame threads over all cores, the quickest for one decode).
  const total = { wall: 0, cpu: 0, jpegs: 0 };
  let batch: Array<{ job: VideoJob; frames: Map<number, Buffer>; jpegs: ReturnType<typeof distinctJpegs> }> = [];
  let held = 0;
  const encodeBatch = async () => {
    const work = batch.flatMap((v) => v.jpegs.map((d) => ({ v, d })));
    const t = await timed(() =>
      lanes(work, inFlight, async ({ v, d }) => {
        const file = path.join(outDir, `${v.job.hash}_${d.index}_${d.width}x${d.height}.jpg`);
        await encodeJpegFile(v.frames.get(d.index)!, v.job.meta, d, file);
      }),
    );
    total.wall += t.wall;
    total.cpu += t.cpu;
    total.jpegs += work.length;
    batch = [];
    held = 0;
    await fs.rm(outDir, { recursive: true, force: true });
    await fs.mkdir(outDir);
  };
  for (const job of w.jobs) {
    const jpegs = distinctJpegs(job);
    const indices = [...new Set(jpegs.map((d) => d.index))];
    const frameBytes = job.meta.width * job.meta.height * 3;
    if (held > 0 && held + indices.length * frameBytes > batchBytes) await encodeBatch();
    const frames = new Map<number, Buffer>();
    await decodeSelectedFrames({
      videoPath: job.videoPath,
      width: job.meta.width,
      height: job.meta.height,
      expectedFrames: job.meta.n_frames,
      indices,
      ffmpegPath: process.env.FFMPEG_BIN ?? 'ffmpeg',
      ffprobePath: process.env.FFPROBE_BIN ?? 'ffprobe',
      threads: ffmpegThreads,
      budget: new ByteBudget(64 * frameBytes),
      onFrame: async (index, rgb) => {
        frames.set(index, Buffer.from(rgb));
      },
    });
    batch.push({ job, frames, jpegs });
    held += indices.length * frameBytes;
  }
  if (batch.length) await encodeBatch();
  return total;
}

async function main() {
  const args = parse();
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-bench-frames-'));
  if (args.prepareOnly) {
    if (!args.package) throw new Error('--prepare-only needs --package DIR (the folder to make the package in)');
    const made = await timed(() => preparePackage(args, args.package!));
    console.log(`bench/frames: ${args.source} package at scale ${args.scale} made in ${args.package} in ${made.wall.toFixed(1)} s`);
    await fs.rm(work, { recursive: true, force: true });
    return;
  }
  const root = args.package ?? path.join(work, 'pkg');
  const pipelineOptions = {
    storeDir: path.join(work, 'store'),
    poolSize: args.pool,
    ffmpegThreads: args.threads,
    maxBufferedBytes: args.rawBudgetMiB === undefined ? undefined : Math.round(args.rawBudgetMiB * MiB),
  };
  const settings = resolveOptions(pipelineOptions);
  const uvThreads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  console.log(
    `bench/frames: scale ${args.scale}, ${args.package ? `package ${args.package}` : `source ${args.source}`}, pool ${args.pool}, ` +
      `ffmpeg threads ${settings.ffmpegThreads || 'auto'}, ` +
      `raw budget ${(settings.maxBufferedBytes / MiB).toFixed(0)} MiB, ${os.availableParallelism()} cores, ` +
      `sharp on ${uvThreads} libuv threads, ffmpeg + sharp, phases ${[...args.phases].join(',')}`,
  );
  const made = await timed(async () => (args.package ? planSample(args.scale) : preparePackage(args, root)));
  const plan = made.value;
  const w = await buildWorkload(root, plan);
  const distinctVideos = w.jobs.length;
  const decodedTotal = w.jobs.reduce((a, j) => a + j.meta.n_frames, 0);
  const distinctJpegCount = w.jobs.reduce((a, j) => a + distinctJpegs(j).length, 0);
  console.log(
    `package ready in ${made.wall.toFixed(1)} s: ${distinctVideos} videos (${decodedTotal} stored frames), ` +
      `${w.requests.length} requests, ${w.frames} frames to serve, ${distinctJpegCount} distinct JPEGs`,
  );
  if (args.workloadJson) await writeWorkload(args.workloadJson, root, w);
  // Warm the page cache so no phase pays for the first read.
  for (const j of w.jobs) await fs.readFile(j.videoPath);
  // Each phase's row and JSON are written as soon as it ends: a later phase that fails loses nothing.
  const cores = os.availableParallelism();
  type Phase = { frames: number; wall_s: number; cpu_s: number; ffmpeg_cpu_s: number; frames_per_s: number; cores_busy: number } & Record<string, number>;
  const phases: Record<'a' | 'b' | 'c' | 'd', Phase | null> = { a: null, b: null, c: null, d: null };
  let stats: PipelineStats | null = null;
  let failed: string | null = null;
  const flush = async () => {
    if (!args.json) return;
    await fs.writeFile(
      args.json,
      JSON.stringify(
        {
          scale: args.scale,
          source: args.package ? 'package' : args.source,
          pool: args.pool,
          ffmpeg_threads: settings.ffmpegThreads,
          raw_budget_bytes: settings.maxBufferedBytes,
          uv_threads: uvThreads,
          cores,
          videos: distinctVideos,
          stored_frames: decodedTotal,
          requests: w.requests.length,
          frames_served: w.frames,
          distinct_jpegs: distinctJpegCount,
          ...phases,
          naive_reseeks: naiveRetries,
          naive_empty_seeks: naiveEmptySeeks,
          pipeline: stats && { jpegs_written: stats.jpegsWritten, frames_decoded: stats.framesDecoded, peak_raw_bytes: stats.peakBufferedBytes },
          phases_done: (['a', 'b', 'c', 'd'] as const).filter((k) => phases[k]),
          failed,
        },
        null,
        1,
      ),
    );
  };
  const record = async (
    key: 'a' | 'b' | 'c' | 'd',
    name: string,
    frames: number,
    t: { wall: number; cpu: number; childCpu: number },
    extra: Record<string, number> = {},
  ) => {
    phases[key] = { frames, wall_s: t.wall, cpu_s: t.cpu, ffmpeg_cpu_s: t.childCpu, frames_per_s: frames / t.wall, cores_busy: t.cpu / t.wall, ...extra };
    console.log(
      `${name.padEnd(34)} ${String(frames).padStart(7)} frames ${t.wall.toFixed(2).padStart(8)} s wall ${(frames / t.wall).toFixed(1).padStart(8)} frames/s` +
        `   ${t.cpu.toFixed(2).padStart(8)} CPU s (ffmpeg ${t.childCpu.toFixed(1)}) ${(frames / t.cpu).toFixed(1).padStart(8)} frames/CPU s` +
        `   ${(t.cpu / t.wall).toFixed(2)} cores busy`,
    );
    await flush();
  };

  try {
    // (c) decode limit
    const execa = await loadExeca();
    let c: Timed<void> | null = null;
    if (args.phases.has('c') || args.phases.has('d')) {
      c = await timed(() =>
        lanes(w.jobs, args.pool, async (j) => {
          await execa(process.env.FFMPEG_BIN ?? 'ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', j.videoPath, '-f', 'null', '-']);
        }),
      );
      await record('c', '(c) decode limit (ffmpeg -f null)', w.frames, c);
    }

    // (a) this pipeline, from an empty store
    if (args.phases.has('a')) {
      const pipeline = new FramePipeline(pipelineOptions);
      const a = await timed(async () => {
        let bad = 0;
        for await (const video of pipeline.prepareAhead(w.jobs)) {
          bad += video.requests.filter((r) => !r.ok).length;
          video.release();
        }
        if (bad) throw new Error(`${bad} requests failed in the pipeline`);
      });
      stats = await pipeline.stats();
      await record('a', '(a) pipeline (decode once)', w.frames, a);
      console.log(
        `pipeline: ${stats.videosDecoded} videos decoded once (${stats.framesDecoded} frames), ` +
          `${stats.jpegsWritten} JPEGs written for ${w.frames} frames served, ` +
          `peak raw buffer ${(stats.peakBufferedBytes / 2 ** 20).toFixed(0)} MiB, store ${(stats.store.bytes / 2 ** 20).toFixed(0)} MiB`,
      );
    }

    // (d) floor: the work (a) cannot avoid — every stored frame decoded once (c) and each distinct JPEG
    // made once (j, from frames already in memory) — scheduled as well as this many cores allow: its CPU
    // is c's + j's, its wall clock the larger of t_c, t_j and (CPU c + CPU j) / cores. (Until 2026-12-03 the
    // wall clock was t_c + t_j, the two run one after the other: (a) overlaps them, so that was no floor.)
    if (args.phases.has('d') && c) {
      const floorDir = path.join(work, 'floor');
      await fs.mkdir(floorDir);
      const j = await jpegsOnce(w, floorDir, 0, Math.max(1, Math.min(8, os.totalmem() / GiB / 8)) * GiB, 64);
      const cpu = c.cpu + j.cpu;
      await record(
        'd',
        `(d) floor (c + ${j.jpegs} JPEGs once)`,
        w.frames,
        { wall: Math.max(c.wall, j.wall, cpu / cores), cpu, childCpu: c.childCpu },
        { jpeg_wall_s: j.wall, jpeg_cpu_s: j.cpu, jpegs: j.jpegs, serial_wall_s: c.wall + j.wall },
      );
      console.log(
        `floor: ${j.jpegs} JPEGs from memory in ${j.wall.toFixed(2)} s wall, ${j.cpu.toFixed(2)} CPU s (${((1000 * j.cpu) / j.jpegs).toFixed(2)} ms each); ` +
          `c then JPEGs one after the other: ${(c.wall + j.wall).toFixed(2)} s`,
      );
    }

    // (b) naive, on a seeded random sample of requests
    if (args.phases.has('b')) {
      const rnd = new SeededRandom(7);
      const sample = rnd.shuffle([...w.requests]);
      const naiveDir = path.join(work, 'naive');
      await fs.mkdir(naiveDir);
      let naiveFrames = 0;
      let naiveRequests = 0;
      // One budget of seeks shared by all lanes, claimed as each seek starts. (It was a per-request count
      // against the frames of requests already finished: each of --pool lanes could make --naive-frames
      // seeks before the first request ended, --pool times the budget, which made (b) take minutes.)
      let seeksClaimed = 0;
      const claim = () => ++seeksClaimed <= args.naiveFrames;
      const b = await timed(() =>
        lanes(sample, args.pool, async (r) => {
          if (seeksClaimed >= args.naiveFrames) return;
          const dir = path.join(naiveDir, String(naiveRequests++));
          await fs.mkdir(dir);
          const made = await naiveRequest(r.meta, r.job.videoPath, r.req, dir, claim); // (not `+= await`: that reads the sum before the await)
          naiveFrames += made;
        }),
      );
      await record('b', `(b) naive seek per frame (${naiveRequests} req, ${naiveRetries} re-seeks, ${naiveEmptySeeks} empty)`, naiveFrames, b, {
        requests: naiveRequests,
        reseeks: naiveRetries,
        empty_seeks: naiveEmptySeeks,
      });
    }
  } catch (err) {
    failed = String(err instanceof Error ? err.message : err);
    await flush();
    throw err;
  }

  const rate = (p: Phase | null) => (p ? p.frames / p.wall_s : NaN);
  const cpuRate = (p: Phase | null) => (p ? p.frames / p.cpu_s : NaN);
  const ratio = (x: number, y: number) => (Number.isFinite(x / y) ? (x / y).toFixed(2) : '-');
  const { a, b, c, d } = phases;
  console.log(
    `a/b = ${ratio(rate(a), rate(b))} (target ≥ 5)   a/c = ${ratio(rate(a), rate(c))} (target ≥ 0.7)   a/d = ${ratio(rate(a), rate(d))}   ` +
      `[CPU: a/b = ${ratio(cpuRate(a), cpuRate(b))}, a/c = ${ratio(cpuRate(a), cpuRate(c))}, a/d = ${ratio(cpuRate(a), cpuRate(d))}]`,
  );
  if (!args.keep) await fs.rm(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
