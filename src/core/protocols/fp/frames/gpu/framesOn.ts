// `--frames-on gpu|cpu|auto` (issue 34): where FP's frames are made. The bytes differ a little between the two
// paths (another resampler and JPEG encoder), never what the SPEC fixes: the frames, their sizes, quality 85 on
// the IJG scale, 4:2:0, baseline (test/core/protocols/fp/frames/gpuJpegs.test.ts checks the GPU path's files).
//  - cpu: ffmpeg's decode + sharp (the default, and wherever the GPU path is not found).
//  - gpu: NVDEC + GPU Lanczos-3 + libjpeg (pillow), when the probe finds it; otherwise the CPU path, with the reasons.
//  - auto: the GPU path only when it is found AND the pilot measured the host's CPU as the bound (its status
//    file's hostCpu.bound, the rule of runner/hostCpu.ts) AND, where the pilot timed both paths, the GPU path was
//    faster a video (issue 45); no measurement → CPU, except in a pilot, which times both paths.
import type { GpuFramesProbe } from './probe';

export const FRAMES_ON = ['cpu', 'gpu', 'auto'] as const;
export type FramesOn = (typeof FRAMES_ON)[number];

export interface FramesOnChoice {
  use: 'cpu' | 'gpu';
  /** On the GPU path, alternate videos with the CPU path to time both (a pilot under auto with no measurement). */
  measure?: boolean;
  /** One line: why this path (for the run's log and the report). */
  reason: string;
}

/** Where the frames are made, once the run has chosen (sweep/adapters.ts framesFor), with what the probe found. */
export interface FramesPlacement {
  use: 'cpu' | 'gpu';
  /** Why (chooseFramesOn's reason); absent where nothing was chosen (`--frames-on cpu`). */
  reason?: string;
  /** Null: not probed (`--frames-on cpu`). */
  probe: GpuFramesProbe | null;
}

export function parseFramesOn(value: string | undefined): FramesOn {
  const v = (value ?? 'cpu').trim().toLowerCase();
  if ((FRAMES_ON as readonly string[]).includes(v)) return v as FramesOn;
  throw new RangeError(`--frames-on must be one of ${FRAMES_ON.join(', ')}, got '${value}'`);
}

/** What a pilot measured (sweep/fpHostCpu.ts pilotFramesMeasure): the host CPU and each path's seconds a video. */
export interface FramesMeasure {
  cpuBound: boolean;
  /** The measurement in words (the pilot's id and its host CPU line). */
  text: string;
  /** Mean seconds a video took in its pool slot on each path; null where the pilot made none there. */
  cpuSPerVideo: number | null;
  gpuSPerVideo: number | null;
}

const s2 = (x: number) => `${x.toFixed(2)} s`;

/**
 * @param pilot what the last pilot measured, or null when none did.
 * @param isPilot this run is a pilot: with `auto` and no measurement yet it measures both paths (`measure`: videos
 * alternate between the GPU, once a helper is warm, and the CPU), so the next run decides by figures.
 *
 * `auto` (issue 45) takes the GPU path where the pilot found the host's CPU the bound AND, where the pilot timed both
 * paths, the GPU path took less time a video; a host with CPU to spare keeps the CPU path (the GPU path would only
 * add its start-up and its helpers' share of the GPU).
 */
export function chooseFramesOn(mode: FramesOn, found: GpuFramesProbe | null, pilot: FramesMeasure | null, isPilot = false): FramesOnChoice {
  if (mode === 'cpu') return { use: 'cpu', reason: 'frames on the CPU (--frames-on cpu)' };
  const missing = !found ? 'not probed' : found.reasons.join('; ');
  // auto says what the pilot measured even here: the cores may bind with no GPU path to move the frames to.
  const pilotSaid = mode === 'auto' && pilot ? `; ${pilot.text}` : '';
  if (!found?.ok) return { use: 'cpu', reason: `frames on the CPU: no GPU path on this host (${missing})${pilotSaid}` };
  const gpuName = `${found.gpu ?? 'GPU'}: NVDEC + GPU resize`;
  if (mode === 'gpu') return { use: 'gpu', reason: `frames on the GPU (--frames-on gpu; ${gpuName})` };
  if (!pilot) {
    return isPilot
      ? {
          use: 'gpu',
          measure: true,
          reason:
            'frames on both paths: --frames-on auto in a pilot with no measurement yet, so its videos alternate ' +
            `between the GPU (${gpuName}) and the CPU, timing each`,
        }
      : { use: 'cpu', reason: 'frames on the CPU: --frames-on auto, and no pilot has measured the host yet' };
  }
  const why = ` (${pilot.text})`;
  if (!pilot.cpuBound) return { use: 'cpu', reason: `frames on the CPU: --frames-on auto, and the pilot found the host's CPU not the bound${why}` };
  const { cpuSPerVideo: cpu, gpuSPerVideo: gpu } = pilot;
  if (cpu !== null && gpu !== null && gpu >= cpu) {
    return {
      use: 'cpu',
      reason:
        "frames on the CPU: --frames-on auto; the pilot found the host's CPU the bound, but a video took " +
        `${s2(gpu)} on the GPU path against ${s2(cpu)} on the CPU${why}`,
    };
  }
  const timed = cpu !== null && gpu !== null ? `a video took ${s2(gpu)} on the GPU path against ${s2(cpu)} on the CPU` : 'the pilot did not time the GPU path';
  return { use: 'gpu', reason: `frames on the GPU: --frames-on auto, and the pilot found the host's CPU the bound${why}; ${timed}; ${gpuName}` };
}
