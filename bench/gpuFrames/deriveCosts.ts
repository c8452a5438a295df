// The host bench's GPU frame costs from a device run (bench/gpuFrames/device_bench.py's results.json):
//   npx tsx bench/gpuFrames/deriveCosts.ts RESULTS.json DEVICE_WORDS [OUT.json (default bench/hostSim/measured/gpu-frames.json)]
// Per video class, the costs under a busy GPU (the interference phase: the frames beside a model-shaped matmul, as
// they run beside vLLM), which are the higher ones: host CPU per video (the helpers' own CPU and their ffmpeg's,
// CUDA's start excluded: once per helper), the wall a video holds one of `pool` slots (the pool's wall less one
// helper start, the probe's, × helpers / videos: an estimate, the helpers start side by side), and the GPU time taken.
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { measuredGpuFramesSchema, type MeasuredGpuFrames } from '../hostSim/gpuFrameCosts';

interface Pool {
  wall_s: number;
  videos: number;
  helpers: number;
  ok: boolean;
  job_cpu_s_per_video: number;
}

function main(): void {
  const [file, device, outArg] = process.argv.slice(2);
  if (!file || !device) throw new Error('usage: deriveCosts.ts RESULTS.json DEVICE_WORDS [OUT.json]');
  const out = outArg ?? path.join('bench', 'hostSim', 'measured', 'gpu-frames.json');
  const r = JSON.parse(readFileSync(file, 'utf8')) as { started: string; phases: Record<string, Record<string, unknown>> };
  const frames = r.phases.frames as Record<string, Pool | number | { wall_s: number }>;
  // Each helper starts CUDA once (the probe's wall); a pool's wall includes it, once per helper, so it comes off.
  const startS = (frames.helper_start as { wall_s: number }).wall_s;
  const slotWall = (p: Pool) => (Math.max(0, p.wall_s - startS) * p.helpers) / p.videos;
  const decode = r.phases.decode as Record<string, { pool4: { cpu_s_per_video: number } }>;
  const interf = r.phases.interference as Record<string, { gpu_s_taken_per_video: number; frames: Pool }>;
  const work = JSON.parse(readFileSync(path.join(path.dirname(file), 'workload.json'), 'utf8')) as {
    classes: { name: string; width: number; height: number; frames: number }[];
  };
  const classes: MeasuredGpuFrames['classes'] = {};
  const modelled: string[] = [];
  for (const c of work.classes) {
    const quiet = frames[`${c.name}_gpu-cpujpeg_p4`] as Pool;
    const busy = interf[c.name]?.frames;
    if (!quiet?.ok) throw new Error(`${c.name}: no gpu-cpujpeg_p4 figures in ${file}`);
    const loaded = busy?.ok ? busy : null;
    if (!loaded) modelled.push(`${c.name}: no figures beside the matmul; the quiet GPU's taken, and no GPU time charged`);
    const cpu = Math.max(quiet.job_cpu_s_per_video, loaded?.job_cpu_s_per_video ?? 0);
    classes[c.name] = {
      width: c.width,
      height: c.height,
      storedFrames: c.frames,
      jpegsPerVideo: frames[`${c.name}_jpegs_per_video`] as number,
      cpuSPerVideo: cpu,
      decodeCpuSPerVideo: Math.min(cpu, decode[`${c.name}_nvdec`].pool4.cpu_s_per_video),
      wallSPerVideo: Math.max(slotWall(quiet), loaded ? slotWall(loaded) : 0),
      pool: quiet.helpers,
      gpuSTakenPerVideo: loaded ? interf[c.name].gpu_s_taken_per_video : 0,
    };
  }
  const m = measuredGpuFramesSchema.parse({
    device,
    measuredAt: r.started,
    command: `bench/gpuFrames: device_bench.py (run-on-device.sh), then deriveCosts.ts ${path.basename(file)}`,
    classes,
    modelled,
  });
  writeFileSync(out, JSON.stringify(m, null, 2) + '\n');
  console.log(`${out}: ${JSON.stringify(m.classes)}`);
}

main();
