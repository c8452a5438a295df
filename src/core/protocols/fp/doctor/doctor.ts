// `fpsweep doctor`: is this machine ready for the sweep? Each line ok / warn / fail with what to do.
// The sweep's checks live here; AVTime's vLLM lines come from its own folder (protocols/avtime/doctor/), so one
// `fpsweep doctor` still answers for every run type on the machine.
import type { DoctorLine, DoctorReport } from '../../../doctor/schema';
import { checkGpus } from '../../../doctor/gpus';
import { checkContext } from './context';
import { checkVllms, checkFfmpeg, type VllmCheck } from '../../../doctor/tools';
import { avtimeVllmChecks } from '../../avtime/doctor/vllmChecks';
import { checkModel } from './model';
import { fpVllmCheck } from './vllmCheck';
import { checkCores, checkDisk, cores as machineCores } from './machine';
import { checkPackage } from './packageSummary';
import { checkMaxSeqs } from './maxSeqs';
import { checkFrameStoreDisk, estimatePlanJpegs } from './frameDisk';
import { checkProcessorCache } from './processorCache';
import * as os from 'node:os';
import { checkPaths } from './paths';

export interface DoctorOptions {
  packageDir?: string | null;
  /** Environment for the probes and caches (PATH, VLLM_BIN, TARGET_VLLM_BIN, JUDGE_VLLM_BIN, HF_HOME, HF_HUB_CACHE, GPU_UTIL, NGPU, MAX_SEQS, WORKERS). */
  env?: NodeJS.ProcessEnv;
  gpuUtil?: number;
  cores?: number;
  freeBytes?: (dir: string) => Promise<number>;
  /** Host memory (default os.totalmem()), for sizing vLLM's processor cache. */
  ramBytes?: number;
}

/** The run types' vLLM executables and pins: FP on VLLM_BIN; AVTime's target and judge on their own (default VLLM_BIN). */
function vllmChecks(env: NodeJS.ProcessEnv): VllmCheck[] {
  const base = env.VLLM_BIN || 'vllm';
  return [fpVllmCheck(base), ...avtimeVllmChecks(env, base)];
}

export async function runDoctor(opts: DoctorOptions = {}): Promise<DoctorReport> {
  const env = opts.env ?? process.env;
  const gpuUtil = opts.gpuUtil ?? (env.GPU_UTIL ? Number(env.GPU_UTIL) : 0.85);
  const [{ line: gpuLine, gpus }, vllms, model, ffmpeg] = await Promise.all([
    checkGpus(env),
    checkVllms(vllmChecks(env), env),
    checkModel(env),
    checkFfmpeg(env),
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
  ];
  lines.push(await checkDisk(opts.packageDir ?? null, opts.freeBytes));
  if (opts.packageDir) {
    const pkg = await checkPackage(opts.packageDir);
    lines.push(...(await checkPaths(opts.packageDir)));
    const est = pkg.plan ? await estimatePlanJpegs(pkg.plan) : undefined;
    lines.push(await checkFrameStoreDisk(opts.packageDir, pkg.plan, opts.freeBytes, est));
    if (est) lines.push(checkProcessorCache(est.largestVideosCacheBytes, used.length || 1, opts.ramBytes ?? os.totalmem()));
    lines.push(...pkg.lines);
  }
  return { packageDir: opts.packageDir ?? null, lines, ok: lines.every((l) => l.status !== 'fail') };
}

export function formatDoctor(r: DoctorReport): string {
  const tag = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' } as const;
  const out: string[] = [];
  for (const l of r.lines) {
    out.push(`${tag[l.status]}  ${l.title}: ${l.detail}`);
    if (l.action) out.push(`      → ${l.action}`);
  }
  const n = (s: DoctorLine['status']) => r.lines.filter((l) => l.status === s).length;
  out.push(`${n('ok')} ok, ${n('warn')} warn, ${n('fail')} fail${r.ok ? '' : ' — fix the failures before the run'}`);
  return out.join('\n');
}
