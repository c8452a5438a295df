// Can this host make FP's frames on the GPU (issue 34)? Three things, each asked of the host itself:
//  - ffmpeg's hwaccel list names `cuda` (`ffmpeg -hwaccels`): NVDEC through ffnvcodec, which loads the driver's
//    libnvcuvid at run time (Debian's and Ubuntu's ffmpeg are built so);
//  - a Python with CUDA torch (vLLM's own environment has it) and pillow (a vLLM dependency: the JPEGs are written
//    by its libjpeg, as nvJPEG through torchvision 0.26 writes 4:4:4 only; fp_gpu_frames.py says how that was found);
//  - the helper itself (resources/python/fp_gpu_frames.py) is there.
// Never throws: a missing piece is a reason, and the CPU path stays.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { parseBoundedJson } from '../../../../io/boundedJson';
import { probe } from '../../../../runner/probe';

export interface GpuFramesTools {
  ffmpegPath: string;
  /** The Python that runs the helper: vLLM's environment (PYTHON, else python3). */
  pythonPath: string;
  helperPath: string;
  env?: NodeJS.ProcessEnv;
}

export interface GpuFramesProbe {
  ok: boolean;
  ffmpegCuda: boolean;
  torch: string | null;
  torchvision: string | null;
  gpu: string | null;
  nvjpeg: boolean;
  pillow: string | null;
  /** Why the GPU path is not available (empty when ok). */
  reasons: string[];
}

const helperProbeSchema = z
  .object({
    torch: z.string().nullable(),
    torchvision: z.string().nullable(),
    cuda: z.boolean(),
    gpu: z.string().nullable(),
    nvjpeg: z.boolean(),
    pillow: z.string().nullable().default(null),
    errors: z.array(z.string()).default([]),
  })
  .passthrough();

/** The helper shipped with the extension: <package root>/resources/python/fp_gpu_frames.py. */
export function defaultGpuHelperPath(from = __dirname): string {
  let dir = from;
  for (;;) {
    const candidate = path.join(dir, 'resources', 'python', 'fp_gpu_frames.py');
    if (existsSync(candidate) || existsSync(path.join(dir, 'package.json'))) return candidate;
    const up = path.dirname(dir);
    if (up === dir) return candidate;
    dir = up;
  }
}

/** `ffmpeg -hwaccels` lists one method a line after its header; true when `cuda` is one of them. */
export function hwaccelsListCuda(stdout: string): boolean {
  return stdout
    .split(/\r?\n/)
    .slice(1)
    .some((l) => l.trim() === 'cuda');
}

/** true where `ffmpeg -hwaccels` names cuda; else why not (never throws). */
export async function ffmpegHasCuda(ffmpegPath: string, env: NodeJS.ProcessEnv): Promise<true | string> {
  const hw = await probe(ffmpegPath, ['-hide_banner', '-hwaccels'], env, 30_000);
  if (!hw.ok) return `ffmpeg -hwaccels failed: ${hw.message}`;
  if (!hwaccelsListCuda(hw.stdout)) return `${ffmpegPath} has no cuda hwaccel (NVDEC): its -hwaccels list does not name cuda`;
  return true;
}

export async function probeGpuFrames(tools: GpuFramesTools): Promise<GpuFramesProbe> {
  const env = tools.env ?? process.env;
  const reasons: string[] = [];
  const out: GpuFramesProbe = { ok: false, ffmpegCuda: false, torch: null, torchvision: null, gpu: null, nvjpeg: false, pillow: null, reasons };
  const hw = await ffmpegHasCuda(tools.ffmpegPath, env);
  if (hw !== true) reasons.push(hw);
  else out.ffmpegCuda = true;
  if (!existsSync(tools.helperPath)) {
    reasons.push(`the GPU frames helper ${tools.helperPath} is missing`);
    return out;
  }
  const py = await probe(tools.pythonPath, [tools.helperPath, '--probe', '--ffmpeg', tools.ffmpegPath], env, 120_000);
  if (!py.ok) {
    reasons.push(`${tools.pythonPath} ${path.basename(tools.helperPath)} --probe: ${py.message}`);
    return out;
  }
  let parsed: z.infer<typeof helperProbeSchema>;
  try {
    const last = py.stdout.trim().split('\n').pop() ?? '';
    const r = helperProbeSchema.safeParse(parseBoundedJson(last));
    if (!r.success) throw new Error('unexpected answer');
    parsed = r.data;
  } catch {
    reasons.push(`${tools.pythonPath} ${path.basename(tools.helperPath)} --probe did not answer one JSON line`);
    return out;
  }
  Object.assign(out, { torch: parsed.torch, torchvision: parsed.torchvision, gpu: parsed.gpu, nvjpeg: parsed.nvjpeg, pillow: parsed.pillow });
  if (!parsed.torch) reasons.push(`${tools.pythonPath} has no torch (${parsed.errors.join('; ') || 'not importable'})`);
  else if (!parsed.cuda) reasons.push(`torch ${parsed.torch} sees no CUDA GPU`);
  if (!parsed.pillow) reasons.push(`${tools.pythonPath} has no pillow (the JPEG encoder)`);
  out.ok = reasons.length === 0;
  return out;
}
