// `--frames-on gpu|cpu|auto` (issue 34): where FP's frames are made. The bytes differ a little between the two
// paths (another resampler and JPEG encoder), never what the SPEC fixes: the frames, their sizes, quality 85 on
// the IJG scale, 4:2:0, baseline (test/core/protocols/fp/frames/gpuJpegs.test.ts checks the GPU path's files).
//  - cpu: ffmpeg's decode + sharp (the default, and wherever the GPU path is not found).
//  - gpu: NVDEC + GPU Lanczos-3 + libjpeg (pillow), when the probe finds it; otherwise the CPU path, with the reasons.
//  - auto: the GPU path only when it is found AND the pilot measured the host's CPU as the bound (its status
//    file's hostCpu.bound, the rule of runner/hostCpu.ts); no measurement → CPU.
import type { GpuFramesProbe } from './probe';

export const FRAMES_ON = ['cpu', 'gpu', 'auto'] as const;
export type FramesOn = (typeof FRAMES_ON)[number];

export interface FramesOnChoice {
  use: 'cpu' | 'gpu';
  /** One line: why this path (for the run's log and the report). */
  reason: string;
}

/** Where the frames are made, once the run has chosen (sweep/adapters.ts framesFor), with what the probe found. */
export interface FramesPlacement {
  use: 'cpu' | 'gpu';
  /** Null: not probed (`--frames-on cpu`). */
  probe: GpuFramesProbe | null;
}

export function parseFramesOn(value: string | undefined): FramesOn {
  const v = (value ?? 'cpu').trim().toLowerCase();
  if ((FRAMES_ON as readonly string[]).includes(v)) return v as FramesOn;
  throw new RangeError(`--frames-on must be one of ${FRAMES_ON.join(', ')}, got '${value}'`);
}

/**
 * @param pilotCpuBound the pilot's measurement: true when the host's cores bound it, false when not, null when
 * there is none (no pilot run yet).
 * @param measured the measurement in words (sweep/fpHostCpu.ts's pilotHostCpu), for the reason.
 */
export function chooseFramesOn(mode: FramesOn, found: GpuFramesProbe | null, pilotCpuBound: boolean | null, measured?: string): FramesOnChoice {
  if (mode === 'cpu') return { use: 'cpu', reason: 'frames on the CPU (--frames-on cpu)' };
  const missing = !found ? 'not probed' : found.reasons.join('; ');
  // auto says what the pilot measured even here: the cores may bind with no GPU path to move the frames to.
  const pilotSaid = mode === 'auto' && measured ? `; ${measured}` : '';
  if (!found?.ok) return { use: 'cpu', reason: `frames on the CPU: no GPU path on this host (${missing})${pilotSaid}` };
  if (mode === 'gpu') return { use: 'gpu', reason: `frames on the GPU (--frames-on gpu; ${found.gpu ?? 'GPU'}: NVDEC + GPU resize)` };
  if (pilotCpuBound === null) return { use: 'cpu', reason: 'frames on the CPU: --frames-on auto, and no pilot has measured the host yet' };
  const why = measured ? ` (${measured})` : '';
  return pilotCpuBound
    ? {
        use: 'gpu',
        reason: `frames on the GPU: --frames-on auto, and the pilot found the host's CPU the bound${why}; ${found.gpu ?? 'GPU'}: NVDEC + GPU resize`,
      }
    : { use: 'cpu', reason: `frames on the CPU: --frames-on auto, and the pilot found the host's CPU not the bound${why}` };
}
