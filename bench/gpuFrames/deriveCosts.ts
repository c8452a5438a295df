// The host bench's GPU frame costs from a device run (bench/gpuFrames/device_bench.py's results.json, run 3 on: the
// `pools` phase):
//   npx tsx bench/gpuFrames/deriveCosts.ts RESULTS.json DEVICE_WORDS [HELPERS (default 4)] [OUT.json (default bench/hostSim/measured/gpu-frames.json)]
// Per video class, the pool of HELPERS of today's helper (`v2_<class>_p<HELPERS>`) on one GPU beside a model-shaped
// matmul (as they run beside vLLM): host CPU per video (the helper's own and its ffmpeg's), the wall a video holds its
// helper, the GPU time taken from the matmul — each over the helpers' later videos (a helper's first pays cuBLAS'
// and the resize weights' start, once per helper, not per video). The decode share is the helper's ffmpeg (NVDEC
// decode, select, download, the pipe): what grows with the frames decoded.
// (Run 2's file was derived from its `frames` and `interference` phases by this script's first version: git history.)
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { measuredGpuFramesSchema, type MeasuredGpuFrames } from '../hostSim/gpuFrameCosts';

interface Pool {
  ok: boolean;
  helpers: number;
  warm_videos: number;
  slot_wall_s: number;
  cpu_s_per_video: number;
  ffmpeg_cpu_s_per_video: number;
  gpu_s_taken_per_video?: number;
}

function main(): void {
  const [file, device, helpersArg, outArg] = process.argv.slice(2);
  if (!file || !device) throw new Error('usage: deriveCosts.ts RESULTS.json DEVICE_WORDS [HELPERS] [OUT.json]');
  const helpers = Number(helpersArg ?? 4);
  const out = outArg ?? path.join('bench', 'hostSim', 'measured', 'gpu-frames.json');
  const r = JSON.parse(readFileSync(file, 'utf8')) as { started: string; phases: Record<string, Record<string, unknown>> };
  const pools = r.phases.pools as Record<string, Pool | undefined> | undefined;
  if (!pools) throw new Error(`${file}: no pools phase (a run before run 3: see this script's history)`);
  const work = JSON.parse(readFileSync(path.join(path.dirname(file), 'workload.json'), 'utf8')) as {
    classes: { name: string; width: number; height: number; frames: number; jpegs: unknown[] }[];
  };
  const classes: MeasuredGpuFrames['classes'] = {};
  const modelled: string[] = [];
  for (const c of work.classes) {
    const p = pools[`v2_${c.name}_p${helpers}`];
    if (!p?.ok || !p.warm_videos) throw new Error(`${c.name}: no v2 pool of ${helpers} helpers in ${file}`);
    if (p.gpu_s_taken_per_video === undefined) modelled.push(`${c.name}: no matmul timings beside the pool; no GPU time charged`);
    classes[c.name] = {
      width: c.width,
      height: c.height,
      storedFrames: c.frames,
      jpegsPerVideo: c.jpegs.length,
      cpuSPerVideo: p.cpu_s_per_video,
      decodeCpuSPerVideo: Math.min(p.cpu_s_per_video, p.ffmpeg_cpu_s_per_video),
      wallSPerVideo: p.slot_wall_s,
      pool: p.helpers,
      gpuSTakenPerVideo: Math.max(0, p.gpu_s_taken_per_video ?? 0),
    };
  }
  const m = measuredGpuFramesSchema.parse({
    device,
    measuredAt: r.started,
    command: `bench/gpuFrames: device_bench.py (run-on-device.sh, PHASES=…,pools), then deriveCosts.ts ${path.basename(file)} … ${helpers}`,
    classes,
    modelled,
  });
  writeFileSync(out, JSON.stringify(m, null, 2) + '\n');
  console.log(`${out}: ${JSON.stringify(m.classes)}`);
}

main();
