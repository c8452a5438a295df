// Frames × Pixels' doctor hook: is this machine ready for the sweep? Each line ok / warn / fail with what to do.
// `fpsweep doctor` asks every run type's hook (core/doctor/report.ts); the other run types' lines are their own.
import type { DoctorLine } from '../../../doctor/schema';
import type { DoctorHookOptions } from '../../types';
import { checkGpus } from '../../../doctor/gpus';
import { checkContext } from './context';
import { checkVllms, checkFfmpeg } from '../../../doctor/tools';
import { checkModel } from './model';
import { fpVllmCheck } from './vllmCheck';
import { checkCores, checkDisk, cores as machineCores } from './machine';
import { checkPackage } from './packageSummary';
import { checkMaxSeqs } from './maxSeqs';
import { checkFrameStoreDisk, estimatePlanJpegs } from './frameDisk';
import { checkProcessorCache } from './processorCache';
import * as os from 'node:os';
import { checkPaths } from './paths';
import { checkGpuFrames } from './gpuFrames';

/** The sweep's lines: GPUs, its vLLM on VLLM_BIN, the model, ffmpeg, context, MAX_SEQS, cores, disk, and with a package its own checks. */
export async function fpDoctorLines(packageDir: string | null, opts: DoctorHookOptions): Promise<DoctorLine[]> {
  const env = opts.env;
  const gpuUtil = env.GPU_UTIL ? Number(env.GPU_UTIL) : 0.85;
  const [{ line: gpuLine, gpus }, vllms, model, ffmpeg, gpuFrames] = await Promise.all([
    checkGpus(env),
    checkVllms([fpVllmCheck(env.VLLM_BIN || 'vllm')], opts.vllmVersion),
    checkModel(env),
    checkFfmpeg(env),
    checkGpuFrames(env),
  ]);
  const ngpuEnv = env.NGPU ? Number(env.NGPU) : NaN;
  const used = Number.isInteger(ngpuEnv) && ngpuEnv > 0 ? gpus.slice(0, ngpuEnv) : gpus;
  const lines: DoctorLine[] = [
    gpuLine,
    ...vllms,
    model,
    ffmpeg,
    checkContext(used, gpuUtil),
    checkMaxSeqs(used, gpuUtil, env.MAX_SEQS, env.WORKERS),
    checkCores(opts.cores ?? machineCores(), used.length || 1),
    gpuFrames,
  ];
  lines.push(await checkDisk(packageDir, opts.freeBytes));
  if (packageDir) {
    const pkg = await checkPackage(packageDir);
    lines.push(...(await checkPaths(packageDir)));
    const est = pkg.plan ? await estimatePlanJpegs(pkg.plan) : undefined;
    lines.push(await checkFrameStoreDisk(packageDir, pkg.plan, opts.freeBytes, est));
    if (est) lines.push(checkProcessorCache(est.largestVideosCacheBytes, used.length || 1, opts.ramBytes ?? os.totalmem()));
    lines.push(...pkg.lines);
  }
  return lines;
}
