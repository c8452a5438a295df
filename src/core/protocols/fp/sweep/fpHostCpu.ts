// Frames × Pixels and the host's CPU (issue 34): the sampler in the sweep, the knob its bottleneck line names when
// the cores bind, and what a pilot measured, for `--frames-on auto`. The rule (runner/hostCpu.ts): the cores bind when
// busy CPU_BOUND_SHARE of cores × wall over the requests' window. Our own share decides the knob: where our tree
// (sharp, ffmpeg decodes) is a large share of the busy CPU, frames on the GPU take most of it off the host
// (doctor/gpuFrames.ts: the device bench's figures); else the CPU goes to vLLM's processes and only more cores help.
import { hostCpuBound, oursShareOfBusy } from '../../../runner/hostCpu';
import { procCpuReader } from '../../../runner/hostCpuProc';
import { lastRunHostCpu } from '../../../runner/hostCpuRecord';
import { hostCpuText, hostCpuStatus, type HostCpuStatus } from '../../../runner/hostCpuStatus';
import { HostCpuSampler } from '../../../runner/hostCpuSampler';
import { SWEEP_CPU_S_PER_VIDEO } from '../doctor/gpuFrames';
import type { FramesPlacement } from '../frames/gpu/framesOn';
import { defaultGpuHelperPath, probeGpuFrames, type GpuFramesTools } from '../frames/gpu/probe';
import type { PackageLayout } from '../package/layout';
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import { parseBoundedJson } from '../../../io/boundedJson';
import { setAsideLargeRecord } from '../../../runner/hostCpuRecord';
import { appendLineUnder, mkdirUnder } from '../../../containment/rootFs';

/** Our tree counts as a large share of the busy CPU from here: frames on the GPU would free enough to matter. */
export const OURS_LARGE_SHARE = 0.3;

/** The tools the GPU path needs, from the environment (FFMPEG_BIN, PYTHON: vLLM's environment). */
export function gpuFrameTools(env: NodeJS.ProcessEnv = process.env): GpuFramesTools {
  return { ffmpegPath: env.FFMPEG_BIN || 'ffmpeg', pythonPath: env.PYTHON || 'python3', helperPath: defaultGpuHelperPath(), env };
}

const pct = (x: number) => `${Math.round(100 * x)}%`;

/** What to turn when the cores bind, in FP's words. */
export function fpHostCpuKnob(s: HostCpuStatus, placement: FramesPlacement | null): string {
  const ours = oursShareOfBusy(s);
  if (ours !== null && ours < OURS_LARGE_SHARE) {
    return `more cores for the GPUs: our frames and requests are ${pct(ours)} of the busy CPU, the rest is vLLM's processes and others`;
  }
  const share = ours === null ? 'our share unknown' : `ours ${pct(ours)} of the busy CPU`;
  if (placement?.use === 'gpu') return `more cores for the GPUs (frames are already on the GPU; ${share})`;
  const saving = Math.round(100 * (1 - SWEEP_CPU_S_PER_VIDEO.gpu / SWEEP_CPU_S_PER_VIDEO.cpu));
  if (placement?.probe?.ok) {
    return (
      `frames on the GPU: --frames-on gpu (or auto); this host has the GPU path (${placement.probe.gpu ?? 'GPU'}: ` +
      `NVDEC, CUDA torch), the whole sweep took ${saving} % less CPU a video with it on an H100 (${share})`
    );
  }
  if (placement?.probe) return `more cores for the GPUs: frames cannot go on the GPU here (${placement.probe.reasons.join('; ')}; ${share})`;
  return `frames on the GPU (--frames-on gpu, where \`fpsweep doctor\` finds NVDEC and a CUDA torch), or more cores (${share})`;
}

/**
 * The GPU path asked of the host when the knob needs it and the run did not probe (`--frames-on cpu`): once, at the
 * end of a run whose cores bound it with our frames a large share. Never throws (the probe gives reasons).
 */
export async function placementForKnob(s: HostCpuStatus | null, placement: FramesPlacement | null): Promise<FramesPlacement | null> {
  if (!s?.bound || placement?.probe || placement?.use === 'gpu') return placement;
  const ours = oursShareOfBusy(s);
  if (ours !== null && ours < OURS_LARGE_SHARE) return placement;
  return { use: placement?.use ?? 'cpu', probe: await probeGpuFrames(gpuFrameTools()) };
}

/** The sampler for a sweep's requests: the host, our tree, the servers we launched as vLLM's. */
export function fpHostCpuSampler(
  layout: PackageLayout,
  id: { runId: string; mode: string },
  serverPids: () => readonly number[],
  log: (line: string) => void,
): HostCpuSampler {
  return new HostCpuSampler({
    reader: procCpuReader({ serverPids }),
    root: layout.root,
    file: layout.hostCpuRecord,
    runId: id.runId,
    mode: id.mode,
    log,
  });
}

/** What the last pilot measured on this package: whether the cores bound it, and the words for the log. */
export interface PilotHostCpu {
  bound: boolean;
  text: string;
}

export async function pilotHostCpu(layout: PackageLayout): Promise<PilotHostCpu | null> {
  const run = await lastRunHostCpu(layout.hostCpuRecord, 'pilot');
  const s = run ? hostCpuStatus(run.measure, null) : null;
  if (!run || !s) return null;
  return { bound: hostCpuBound(run.measure), text: `pilot ${run.runId}: ${hostCpuText(s)}` };
}

const pathSchema = z.object({ videos: z.number().int().nonnegative(), seconds: z.number().nonnegative() });
/** One run's line in layout.framesPathsRecord: where its videos' frames were made and how long each path took. */
export const framesPathsLineSchema = z.object({
  v: z.literal(1),
  runId: z.string(),
  mode: z.string(),
  endedAt: z.string(),
  use: z.enum(['cpu', 'gpu']),
  reason: z.string(),
  cpu: pathSchema,
  gpu: pathSchema,
});
export type FramesPathsLine = z.infer<typeof framesPathsLineSchema>;

/** Appends the run's line (the record is set aside above MAX_RECORD_BYTES, as the host CPU's). */
export async function recordFramesPaths(layout: PackageLayout, line: FramesPathsLine): Promise<void> {
  await mkdirUnder(layout.root, layout.stateDir);
  await setAsideLargeRecord(layout.root, layout.framesPathsRecord);
  appendLineUnder(layout.root, layout.framesPathsRecord, `${JSON.stringify(line)}\n`);
}

/** The run's frames in words: "frames: 12 videos on the GPU (1.10 s each), 3 on the CPU (2.40 s each)". */
export function framesPathsText(l: Pick<FramesPathsLine, 'cpu' | 'gpu'>): string {
  const each = (p: { videos: number; seconds: number }) => (p.videos ? ` (${(p.seconds / p.videos).toFixed(2)} s each)` : '');
  return `frames: ${l.gpu.videos} videos on the GPU${each(l.gpu)}, ${l.cpu.videos} on the CPU${each(l.cpu)}`;
}

/** Every run's line in layout.framesPathsRecord, oldest first (torn or foreign lines passed over). */
export async function readFramesPaths(layout: PackageLayout): Promise<FramesPathsLine[]> {
  const lines: FramesPathsLine[] = [];
  const text = await fs.readFile(layout.framesPathsRecord, 'utf8').catch(() => '');
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    try {
      const r = framesPathsLineSchema.safeParse(parseBoundedJson(raw));
      if (r.success) lines.push(r.data);
    } catch {
      // a torn line is passed over
    }
  }
  return lines;
}

/**
 * Run `runId`'s frames in words for report.md (issue 45: what `--frames-on` chose and why, and what each path
 * made): "frames on the GPU: --frames-on auto, and the pilot found …; frames: 12 videos on the GPU (…), 3 on the
 * CPU (…)"; null where the run left no line.
 */
export async function runFramesText(layout: PackageLayout, runId: string): Promise<string | null> {
  const line = (await readFramesPaths(layout)).filter((l) => l.runId === runId).pop();
  return line ? `${line.reason}; ${framesPathsText(line)}` : null;
}

/** What `--frames-on auto` decides by: the last pilot's host CPU and, where it made videos on both paths, their times. */
export interface PilotFramesMeasure {
  cpuBound: boolean;
  /** The host CPU in words (the pilot's run id first). */
  text: string;
  /** Mean seconds a video took in its pool slot on each path in that pilot; null where it made none there. */
  cpuSPerVideo: number | null;
  gpuSPerVideo: number | null;
}

export async function pilotFramesMeasure(layout: PackageLayout): Promise<PilotFramesMeasure | null> {
  const host = await pilotHostCpu(layout);
  if (!host) return null;
  const last = (await readFramesPaths(layout)).filter((l) => l.mode === 'pilot').pop();
  const per = (p: { videos: number; seconds: number } | undefined) => (p && p.videos > 0 ? p.seconds / p.videos : null);
  // The paths' times count only from the pilot whose host CPU is the one read (same run id in both records).
  const same = last && host.text.startsWith(`pilot ${last.runId}:`) ? last : undefined;
  return { cpuBound: host.bound, text: host.text, cpuSPerVideo: per(same?.cpu), gpuSPerVideo: per(same?.gpu) };
}
