// `fpsweep avtime caption VIDEOS_ROOT …` (SPEC-AVTIME-DATA §3): the flags resolved into the caption job, checked
// in the foreground (a refusal exits 2 and writes nothing), then the job here or, with --detach, in the product's
// worker (returning once it holds the rank's lock).
import { existsSync, promises as fs, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { InputError, UsageError } from '../../../errors';
import { checkPathValue, listFlag, numberFlag, parseCommandArgs, parseOptionsOrUsage, stringFlag, type OptionSpec } from '../../../cli/options';
import { parseGpuGroups } from '../../../serving/gpus';
import { captionJobSchema, type CaptionJob } from '../jobSchema';
import { CAPTION_STATE_DIR, captionRunRoot, SEGMENTS_FILE } from '../layout';
import { CAPTION_PROMPT_GEMINI_V1, CAPTION_PROMPT_GEMINI_VERSION, CAPTION_PROMPT_V1, CAPTION_PROMPT_VERSION } from '../prompt';
import { rankShardOption } from '../../../cli/rankShard';
import { refuseMixedBackends } from '../backends';
import { completedBackends } from '../progress';
import { geminiKeyFromEnv, NO_KEY_WORDS } from '../gemini/geminiKey';

export const DEFAULT_CAPTION_MODEL = 'Qwen/Qwen3-Omni-30B-A3B-Thinking';

const HELP = `usage: fpsweep avtime caption VIDEOS_ROOT (--base-url URL[,URL…] | --model-path DIR [--gpus "0,1;2,3"] [--tp N]
                                          | --backend gemini --model gemini-… [--max-rpm N] [--active-timeout 600]
                                            [--gemini-base-url URL])
         [--model NAME] [--source-video PATH]… [--max-jobs 8] [--max-inflight-clips N (vLLM 64, gemini 1)] [--retries 5]
         [--timeout 300] [--video-fps 4] [--video-min-frames 4] [--video-max-frames 768] [--prompt-file F]
         [--keep-going | --fail-fast] [--shard K/N|auto] [--no-preflight] [--allow-mixed [--recaption]] [--detach]

Captions every clip of every video directory under VIDEOS_ROOT (a direct child holding segments.json) with
Qwen3-Omni on vLLM (the clip's mp4 and its mp3 sidecar as the audio), or with Gemini (--backend gemini: the clip's
mp4, its own audio track), and writes <video>/captions_merged.json on the full video's timeline once all its clips
succeeded.
State, raw records and logs: VIDEOS_ROOT/.fpsweep-caption/. Exit 0 only when every selected video is done, 1 when any failed or is pending, 2 on bad input.
  --base-url U,U       running servers (key: FPSWEEP_API_KEY); --fail-down S (FPSWEEP_FAIL_DOWN; default 120; 0 = off):
                       every one unreachable (refused, reset, /health down) for S seconds stops the run (exit 1,
                       the URL and its words); restart them, then run the same command again: it resumes
  --model-path DIR     launch one vLLM (VLLM_BIN) per GPU group; --gpus "0,1;2,3" (default "0"), or --tp N over
                       --gpus's list split in groups of N; --base-port (default 8011)
  --model NAME         the served model name (default: the checkpoint's basename, else ${DEFAULT_CAPTION_MODEL})
  --shard K/N|auto     caption only rank K's videos (auto: Slurm, Kubernetes, torchrun); state per rank
  --no-preflight       skip the placeholder-count check on the first clip per server
  --backend gemini     caption through Gemini's Files API instead (seed §3 "Gemini fallback"): each clip's mp4 uploaded,
                       <video>/captions/clip_NNNN.json per clip (resume per clip), the looser Gemini normalizer.
                       Key: GEMINI_API_KEY or GOOGLE_API_KEY (environment only). --model names the Gemini model;
                       --max-rpm N bounds generateContent calls a minute; --max-inflight-clips (default 1: one at a
                       time, as the seed); --active-timeout S (default 600) for an upload to become ACTIVE;
                       --gemini-base-url URL (or GOOGLE_GEMINI_BASE_URL): another endpoint (the stand-in,
                       bin/fake-gemini --help); an endpoint that refuses the connection stops the run at once
  --allow-mixed        caption a root another backend captioned before (the seed advises one backend per dataset):
                       only the videos no backend finished; the other backend's captions_merged.json are kept
  --recaption          with --allow-mixed: caption the other backend's finished videos again too (replacing them)

Rerun: resumes: done videos (same clips, model, prompt and decoding) are skipped, the rest captioned (Gemini:
clip by clip).`;

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  'base-url': { type: 'string', value: { kind: 'list' } },
  'model-path': { type: 'string', meta: 'DIR', value: { kind: 'path', is: 'any' } },
  gpus: { type: 'string' },
  tp: { type: 'string', meta: 'N', value: { kind: 'int', min: 1, max: 1024 } },
  'base-port': { type: 'string', meta: 'N', value: { kind: 'int', min: 1024, max: 65535, default: 8011 } },
  model: { type: 'string' },
  'source-video': { type: 'string', multiple: true, meta: 'PATH', value: { kind: 'path', is: 'file' } },
  'max-jobs': { type: 'string', meta: 'N', value: { kind: 'int', min: 1, max: 100_000, default: 8 } },
  'max-inflight-clips': { type: 'string', meta: 'N', value: { kind: 'int', min: 1, max: 100_000 } },
  retries: { type: 'string', meta: 'N', value: { kind: 'int', min: 0, max: 1000, default: 5 } },
  timeout: { type: 'string', meta: 'S', value: { kind: 'number', min: 1, max: 86_400, default: 300 } },
  'video-fps': { type: 'string', meta: 'X', value: { kind: 'number', min: 0.01, max: 120, default: 4 } },
  'video-min-frames': { type: 'string', meta: 'N', value: { kind: 'int', min: 1, max: 100_000, default: 4 } },
  'video-max-frames': { type: 'string', meta: 'N', value: { kind: 'int', min: 1, max: 100_000, default: 768 } },
  'prompt-file': { type: 'string', meta: 'F', value: { kind: 'path', is: 'file' } },
  'keep-going': { type: 'boolean' },
  'fail-fast': { type: 'boolean' },
  'fail-down': { type: 'string', meta: 'S', value: { kind: 'int', min: 0, max: 1_000_000, env: 'FPSWEEP_FAIL_DOWN', default: 120 } },
  shard: { type: 'string' },
  'no-preflight': { type: 'boolean' },
  detach: { type: 'boolean' },
  backend: { type: 'string', value: { kind: 'enum', values: ['vllm', 'gemini'], default: 'vllm' } },
  'gemini-base-url': { type: 'string' },
  'max-rpm': { type: 'string', meta: 'N', value: { kind: 'int', min: 1, max: 1_000_000 } },
  'active-timeout': { type: 'string', meta: 'S', value: { kind: 'number', min: 0.01, max: 86_400, default: 600 } },
  'allow-mixed': { type: 'boolean' },
  recaption: { type: 'boolean' },
  // Tests: the pause between looks at an upload's state.
  'poll-ms': { type: 'string', value: { kind: 'int', min: 1, max: 3_600_000, default: 2000 } },
  // Tests: the client's first backoff before a retry, and the status tick.
  'retry-delay-ms': { type: 'string', value: { kind: 'int', min: 0, max: 3_600_000, default: 500 } },
  'tick-ms': { type: 'string', value: { kind: 'int', min: 50, max: 3_600_000, default: 1000 } },
  // Tests: the longest silence while clips are in flight (default 5 s).
  'progress-ms': { type: 'string', value: { kind: 'int', min: 50, max: 60_000, default: 5000 } },
} satisfies OptionSpec;
export const flags = OPTIONS;
/** VIDEOS_ROOT: an existing folder holding video directories (checked before anything is made in it). */
export const positionals = [{ name: 'VIDEOS_ROOT', rule: { kind: 'path', is: 'dir', root: videosRootCheck } }] as const;

/** A folder with at least one video directory (a direct child holding segments.json), or a root captioned before. */
export function videosRootCheck(abs: string): string | null {
  if (existsSync(path.join(abs, CAPTION_STATE_DIR))) return null;
  for (const e of readdirSync(abs, { withFileTypes: true })) if (e.isDirectory() && existsSync(path.join(abs, e.name, SEGMENTS_FILE))) return null;
  return 'a videos root (no video directory in it: a folder holding segments.json and clips/, as `fpsweep avtime cut` makes)';
}

function gpuGroupsOf(gpus: string | undefined, tp: number | undefined): number[][] {
  const groups = parseGpuGroups(gpus ?? '0', '--gpus');
  if (tp === undefined) return groups;
  const all = groups.flat();
  if (groups.length > 1 && groups.some((g) => g.length !== tp)) throw new UsageError(`--tp ${tp} disagrees with the groups of --gpus '${gpus}'`);
  if (all.length % tp !== 0) throw new UsageError(`--tp ${tp} does not divide the ${all.length} GPUs of --gpus '${gpus ?? '0'}'`);
  return Array.from({ length: all.length / tp }, (_, i) => all.slice(i * tp, (i + 1) * tp));
}

/** The job the flags ask for, checked; a UsageError (bad flags) or InputError (bad VIDEOS_ROOT, prompt file) exits 2. */
export async function captionJobFromArgs(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ job: CaptionJob; detach: boolean }> {
  const parsed = parseCommandArgs(args, OPTIONS, true, HELP);
  const v = parsed.values;
  const str = (k: keyof typeof OPTIONS) => stringFlag(v, k);
  const num = (k: keyof typeof OPTIONS) => numberFlag(v, k);
  if (parsed.positionals.length !== 1) throw new UsageError(`give exactly one VIDEOS_ROOT (got ${parsed.positionals.length})\n\n${HELP}`);
  // Checked before anything is made in it: an empty or missing folder is no videos root (exit 2, nothing created).
  const root = checkPathValue('VIDEOS_ROOT', positionals[0].rule, parsed.positionals[0]);
  const backend = str('backend') as 'vllm' | 'gemini';
  if (backend === 'gemini') {
    if (v['base-url'] || v['model-path'])
      throw new UsageError(`--backend gemini takes no --base-url or --model-path (its endpoint: --gemini-base-url)\n\n${HELP}`);
    if (!v.model) throw new UsageError(`--backend gemini needs --model (a Gemini model, e.g. gemini-2.5-pro)\n\n${HELP}`);
    if (!geminiKeyFromEnv(env)) throw new UsageError(NO_KEY_WORDS);
  } else if (!!v['base-url'] === !!v['model-path']) throw new UsageError(`give one of --base-url or --model-path\n\n${HELP}`);
  else if (v['max-rpm'] || v['gemini-base-url']) throw new UsageError('--max-rpm and --gemini-base-url are for --backend gemini');
  if (v['keep-going'] && v['fail-fast']) throw new UsageError('--keep-going and --fail-fast exclude each other');
  if (v.recaption && !v['allow-mixed']) throw new UsageError('--recaption goes with --allow-mixed (it captions again what another backend finished)');
  // Gemini gets the mp4 alone (its own sound); vLLM the mp4 and the mp3 sidecar: each its own default prompt (prompt.ts).
  let prompt =
    backend === 'gemini'
      ? { text: CAPTION_PROMPT_GEMINI_V1, source: CAPTION_PROMPT_GEMINI_VERSION }
      : { text: CAPTION_PROMPT_V1, source: CAPTION_PROMPT_VERSION };
  const promptFile = str('prompt-file');
  if (promptFile) {
    const file = promptFile;
    const text = await fs.readFile(file, 'utf8').catch((err: Error) => {
      throw new InputError(`--prompt-file ${file}: ${err.message}`);
    });
    if (!text.trim()) throw new InputError(`--prompt-file ${file}:1: the prompt is empty`);
    prompt = { text, source: file };
  }
  const urls = listFlag(v, 'base-url');
  const modelPath = str('model-path');
  const model = str('model') ?? (modelPath ? path.basename(modelPath) : DEFAULT_CAPTION_MODEL);
  const servers: CaptionJob['servers'] =
    backend === 'gemini'
      ? null
      : urls
        ? { mode: 'endpoints', urls }
        : {
            mode: 'managed',
            modelPath: modelPath!,
            gpuGroups: gpuGroupsOf(str('gpus'), num('tp')),
            basePort: num('base-port')!,
            vllmBin: env.VLLM_BIN || 'vllm',
            startTimeoutS: 1800,
          };
  const sampling = {
    fps: num('video-fps')!,
    minFrames: num('video-min-frames')!,
    maxFrames: num('video-max-frames')!,
  };
  if (sampling.minFrames > sampling.maxFrames)
    throw new UsageError(`--video-min-frames ${sampling.minFrames} is above --video-max-frames ${sampling.maxFrames}`);
  const job = parseOptionsOrUsage(captionJobSchema, HELP, {
    root,
    shard: rankShardOption(v.shard, env),
    sourceVideos: (v['source-video'] as string[] | undefined) ?? [],
    backend,
    gemini:
      backend === 'gemini'
        ? {
            baseUrl: str('gemini-base-url') ?? env.GOOGLE_GEMINI_BASE_URL ?? null,
            maxRpm: num('max-rpm') ?? null,
            activeTimeoutS: num('active-timeout')!,
            pollMs: num('poll-ms')!,
          }
        : null,
    allowMixed: v['allow-mixed'] === true,
    recaption: v.recaption === true,
    servers,
    model,
    prompt,
    maxJobs: num('max-jobs'),
    maxInflightClips: num('max-inflight-clips') ?? (backend === 'gemini' ? 1 : 64),
    retries: num('retries'),
    timeoutS: num('timeout'),
    sampling,
    failFast: v['fail-fast'] === true,
    preflight: v['no-preflight'] !== true,
    retryBaseDelayMs: num('retry-delay-ms'),
    tickMs: num('tick-ms'),
    failDownS: num('fail-down'),
    progressMs: num('progress-ms'),
  });
  refuseMixedBackends(await completedBackends(root), job.backend, job.allowMixed);
  return { job, detach: v.detach === true };
}

export const summary = 'AVTime caption: Qwen3-Omni (vLLM) or Gemini captions per clip, merged onto each video (avtime caption VIDEOS_ROOT …)';

export async function run(args: string[]): Promise<number> {
  const { job, detach } = await captionJobFromArgs(args);
  if (!detach) {
    // Lazy, so `--help` and a refused flag load no runner, launcher or HTTP client.
    const { runCaptionJob } = require('../job') as typeof import('../job');
    return runCaptionJob(job);
  }
  const { spawnDetached } = require('../../../runner/control') as typeof import('../../../runner/control');
  const rr = captionRunRoot(job.root, job.shard);
  const w = await spawnDetached({ protocol: 'caption', job, root: rr, lockName: 'caption lock', cwd: job.root });
  process.stdout.write(`caption worker pid ${w.pid} started; log ${w.logFile}; status: fpsweep status --package ${job.root}\n`);
  return 0;
}
