// fpsweep avtime <stage>: AVTime-Bench on the same engine (SPEC-AVTIME §9). A dispatch table of stages;
// `sample` (a small bench root for the stand-ins) has its own verb file.
import * as path from 'node:path';
import { UsageError } from '../../../errors';
import { existsSync, rmSync } from 'node:fs';
import { listFlag, numberFlag, parseVerbArgs, stringFlag, type OptionSpec } from '../../../cli/options';
import type { DemoContext, DemoStep } from '../../../cli/verb';
import { AVTIME_VERBS, parseGpuGroups, type AvtimeOptionsInput, type AvtimeVerb } from '../stages/options';

export const summary = 'AVTime-Bench: avtime <sample|inputs|infer|normalize|judge|score|run> --bench-root DIR; data: split, build-sft, build-grpo, train, dvc';

type Sub = { summary: string; run(args: string[]): Promise<number> };

/** The stages verb by verb, and `avtime sample`. */
export const subs: Readonly<Record<string, () => Sub>> = {
  sample: () => require('./sample') as Sub,
  // The training data (SPEC-AVTIME-DATA §1, §4, §5, §7): each verb parses its own flags.
  split: () => require('../data/cli/split') as Sub,
  'build-sft': () => require('../data/cli/buildSft') as Sub,
  'build-grpo': () => require('../data/cli/buildGrpo') as Sub,
  train: () => require('../data/cli/train') as Sub,
  // LongVALE-compatible inference (§6), the seed's direct runner.
  dvc: () => require('../data/cli/dvc') as Sub,
  ...Object.fromEntries(AVTIME_VERBS.map((v) => [v, () => stageSub(v)])),
  // Two forms: the seed's (§6: --target-inputs, --raw, --output, …) when --raw is given, else the bench's stage.
  normalize: () => ({
    summary: 'normalize',
    run: (args) => {
      const seed = require('../data/cli/normalize') as Sub & typeof import('../data/cli/normalize');
      return (seed.isSeedNormalizeForm(args) ? seed : stageSub('normalize')).run(args);
    },
  }),
};

const HELP = `usage: fpsweep avtime <stage> --bench-root DIR [--run-id ID] [--output-root DIR] [options]

stages:
  sample --out DIR   a small complete bench root made with ffmpeg (videos with audio), for the stand-ins
  inputs             build target_inputs.jsonl (+ report) when absent; fail closed on bad input
  infer              target inference on two shards (GPU groups, TP), canonical: no resume, fail closed
  normalize          LongVALE lines → predictions (official adjacent merge)
  judge              caption-only judge requests: pass 1 at 512 tokens, retry pass at 4096
  score              the six scores, traces, run_config.json
  run                all of the above in order (--detach: in the background worker)

training data (each with --help):
  split              the AVTime-50K split (frozen or derived test ids)
  build-sft          one-round SFT rows;  build-grpo   pure-BiTSC GRPO rows
  train sft|grpo     --dry-run: the expanded Megatron-SWIFT command per node rank, topology checked

LongVALE-compatible inference (each with --help):
  dvc                AVTime-Bench's target request per row of a JSONL (--base-url or --model-path);
                     resumable and continue-on-error by default, exit 2 if any row failed
  normalize --raw F  the seed's form: --target-inputs, --raw, --output, --failures, --report,
                     --model-id, --protocol longvale_train_dvc_v1, --decoding-json (normalize
                     without --raw is the bench stage above)

  --bench-root DIR        test.jsonl, inventory.jsonl, benchmark_reference_manifest.jsonl, prompts/
  --run-id ID             (RUN_ID) default <target>__<judge>__<date>
  --output-root DIR       (OUTPUT_ROOT) default outputs/avtime-bench/<RUN_ID> under the current folder
  --target-inputs PATH    (TARGET_INPUTS) default <bench root>/target_inputs.jsonl
  --target-model M        (TARGET_MODEL) served with vllm serve M; --target-model-id (TARGET_MODEL_ID)
  --judge-model M         (JUDGE_MODEL); --judge-model-id (JUDGE_MODEL_ID)
  --target-gpus G         GPU groups, one shard each (default "0,1,2,3;4,5,6,7"); --target-tp N (default 4)
  --judge-gpus G          (default "0,1,2,3,4,5,6,7"), started after target inference; --judge-tp N (default 8)
  --target-endpoints U,U  running target servers, one per shard (key: FPSWEEP_API_KEY)
  --judge-endpoint U      a running judge server; --fail-down S (FPSWEEP_FAIL_DOWN; default 120; 0 = off): the
                          given servers of a stage with requests left all unreachable (refused, reset, /health
                          down) for S seconds stop the run (exit 1, the URL and its words; the judge's and
                          --keep-going's requests stay to do: a dead target's shard waits while the others go
                          on); restart them, then continue with --resume. A canonical target row that fails
                          stops the run at once; it never resumes: start a new run in a new output root
  --no-audio-in-video     send use_audio_in_video false (recorded)
  --target-vllm-bin B     (TARGET_VLLM_BIN) the target's vllm, vLLM ≥ 0.18.0; --judge-vllm-bin B
                          (JUDGE_VLLM_BIN) the judge's, ≥ 0.17.0; both default VLLM_BIN (docs/VLLM-PINS.md)
  --judge-thinking        the judge thinks (enable_thinking true); non-thinking by default (recorded;
                          a resume in the other mode is refused)
  --keep-going            non-canonical: target row errors do not stop the other rows (recorded)
  --resume                back into an existing run: canonical shards never resume; normalize,
                          judge and score continue from their artifacts
  --target-batch N        requests in flight per target server (default 512)
  --judge-batch N         judge requests in flight, pass 1 (default 32; retry pass --judge-retry-batch 16)
  --target-base-port N    the launched target servers listen on N, N+1, … (default 8011)
  --judge-base-port N     the launched judge server listens on N (default 8031); both 1024–65535
  --detach                (run) in the background worker; returns once it holds the output root's lock

VLLM_BIN names the vLLM executable (default vllm); each server must report a vLLM of its role's pin. Exit: 0 done, 1 a fail-closed stage stopped,
2 bad usage or input (nothing written). The last line says what happened, in numbers.

Rerun: refuses (exit 2) for infer and run: an output root that holds a run is immutable (a new --run-id starts
another run, --resume --run-id ID continues that one); inputs, normalize, judge and score say "already …" and exit 0.`;

/** A bench root holds test.jsonl (with inventory.jsonl, the reference manifest and prompts/ beside it). */
export function benchRootCheck(abs: string): string | null {
  return existsSync(path.join(abs, 'test.jsonl'))
    ? null
    : 'a bench root (no test.jsonl in it; one holds test.jsonl, inventory.jsonl, benchmark_reference_manifest.jsonl and prompts/: ' +
        '`fpsweep avtime sample --out DIR` makes a small one)';
}

const count = (env: string) => ({ type: 'string', meta: 'N', value: { kind: 'int', min: 1, max: 1_000_000, env } }) as const;
const port = { type: 'string', meta: 'N', value: { kind: 'int', min: 1024, max: 65535 } } as const;

export const flags = {
  'bench-root': { type: 'string', meta: 'DIR', value: { kind: 'path', is: 'dir', env: 'BENCH_ROOT', root: benchRootCheck } },
  'run-id': { type: 'string' },
  'output-root': { type: 'string', meta: 'DIR', value: { kind: 'path', is: 'out-dir', env: 'OUTPUT_ROOT' } },
  'target-inputs': { type: 'string', meta: 'PATH', value: { kind: 'path', is: 'out-file', env: 'TARGET_INPUTS' } },
  'target-model': { type: 'string' },
  'target-model-id': { type: 'string' },
  'target-revision': { type: 'string' },
  'judge-model': { type: 'string' },
  'judge-model-id': { type: 'string' },
  'judge-revision': { type: 'string' },
  'target-gpus': { type: 'string' },
  'target-tp': count('TARGET_TP'),
  'judge-gpus': { type: 'string' },
  'judge-tp': count('JUDGE_TP'),
  'target-endpoints': { type: 'string', value: { kind: 'list', env: 'TARGET_ENDPOINTS' } },
  'judge-endpoint': { type: 'string' },
  'fail-down': { type: 'string', meta: 'S', value: { kind: 'int', min: 0, max: 1_000_000, env: 'FPSWEEP_FAIL_DOWN', default: 120 } },
  'no-audio-in-video': { type: 'boolean' },
  'target-vllm-bin': { type: 'string' },
  'judge-vllm-bin': { type: 'string' },
  'judge-thinking': { type: 'boolean' },
  'keep-going': { type: 'boolean' },
  resume: { type: 'boolean' },
  'target-batch': count('TARGET_BATCH_SIZE'),
  'judge-batch': count('JUDGE_BATCH_SIZE'),
  'judge-retry-batch': count('JUDGE_RETRY_BATCH_SIZE'),
  'target-base-port': port,
  'judge-base-port': port,
  detach: { type: 'boolean' },
} satisfies OptionSpec;

const str = (flag: unknown, env: string): string | undefined => (typeof flag === 'string' && flag !== '' ? flag : process.env[env] || undefined);

export function avtimeOptionsFromArgs(args: string[]): { options: AvtimeOptionsInput; detach: boolean } {
  const v = parseVerbArgs(args, flags, HELP);
  const benchRoot = stringFlag(v, 'bench-root');
  if (!benchRoot) throw new UsageError(`--bench-root DIR is required\n\n${HELP}`);
  const options: AvtimeOptionsInput = {
    benchRoot,
    outputRoot: stringFlag(v, 'output-root'),
    runId: str(v['run-id'], 'RUN_ID'),
    targetInputs: stringFlag(v, 'target-inputs'),
    targetModel: str(v['target-model'], 'TARGET_MODEL'),
    targetModelId: str(v['target-model-id'], 'TARGET_MODEL_ID'),
    targetRevision: str(v['target-revision'], 'TARGET_REVISION'),
    judgeModel: str(v['judge-model'], 'JUDGE_MODEL'),
    judgeModelId: str(v['judge-model-id'], 'JUDGE_MODEL_ID'),
    judgeRevision: str(v['judge-revision'], 'JUDGE_REVISION'),
    targetGpus: v['target-gpus'] !== undefined ? parseGpuGroups(String(v['target-gpus']), '--target-gpus') : undefined,
    targetTp: numberFlag(v, 'target-tp'),
    judgeGpus: v['judge-gpus'] !== undefined ? parseGpuGroups(String(v['judge-gpus']), '--judge-gpus') : undefined,
    judgeTp: numberFlag(v, 'judge-tp'),
    targetEndpoints: listFlag(v, 'target-endpoints'),
    judgeEndpoint: str(v['judge-endpoint'], 'JUDGE_ENDPOINT'),
    vllmBin: process.env.VLLM_BIN || undefined,
    targetVllmBin: str(v['target-vllm-bin'], 'TARGET_VLLM_BIN'),
    judgeVllmBin: str(v['judge-vllm-bin'], 'JUDGE_VLLM_BIN'),
    judgeThinking: v['judge-thinking'] === true ? true : undefined,
    audioInVideo: v['no-audio-in-video'] ? false : undefined,
    keepGoing: v['keep-going'] === true ? true : undefined,
    resume: v.resume === true ? true : undefined,
    targetBatch: numberFlag(v, 'target-batch'),
    judgeBatch: numberFlag(v, 'judge-batch'),
    judgeRetryBatch: numberFlag(v, 'judge-retry-batch'),
    targetBasePort: numberFlag(v, 'target-base-port'),
    judgeBasePort: numberFlag(v, 'judge-base-port'),
    failDownS: numberFlag(v, 'fail-down'),
  };
  return { options, detach: v.detach === true };
}

function stageSub(verb: AvtimeVerb): Sub {
  return {
    summary: verb,
    async run(args) {
      const { options, detach } = avtimeOptionsFromArgs(args);
      // Lazy (as main.ts loads verbs), so `fpsweep avtime --help` loads no protocol code.
      const { runAvtime } = require('../stages/run') as typeof import('../stages/run');
      if (detach) {
        if (verb !== 'run') throw new UsageError('--detach goes with `avtime run`');
        // Every check first, in the foreground: a refusal (exit 2) writes nothing and is seen here.
        const checked = await runAvtime(verb, options, { checkOnly: true });
        if (checked.exitCode !== 0 || !checked.outputRoot || !checked.runId) {
          process.stderr.write(`fpsweep avtime: ${checked.line}\n`);
          return checked.exitCode;
        }
        const { startDetachedAvtime } = require('../stages/job') as typeof import('../stages/job');
        const { AvtimeOutputRoot } = require('../stages/layout') as typeof import('../stages/layout');
        const w = await startDetachedAvtime(verb, options, checked.outputRoot, checked.runId);
        process.stdout.write(
          `avtime run started in the background: pid ${w.pid}, log ${w.logFile}, status ${new AvtimeOutputRoot(checked.outputRoot).statusFile}\n`,
        );
        return 0;
      }
      const res = await runAvtime(verb, options);
      (res.exitCode === 0 ? process.stdout : process.stderr).write(`${res.line}\n`);
      return res.exitCode;
    },
  };
}

export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (!sub || sub === '--help' || sub === '-h') {
    process.stdout.write(HELP + '\n');
    return sub ? 0 : 2;
  }
  const load = subs[sub];
  if (!load) throw new UsageError(`unknown avtime stage '${sub}'\n\n${HELP}`);
  return load().run(rest);
}

/**
 * AVTime-Bench's part of `fpsweep demo`: a sample bench root in `<out>-avtime/bench` (unless there) and one run
 * into a new output root. The stand-in plays the target (an "Omni" name) and the judge ("Qwen3.6") on 2 pretend
 * GPUs; a real vLLM gets the seed's canonical topology (8 GPUs, TP 4 per target shard, the judge on all 8).
 */
export function demoSteps(ctx: DemoContext): DemoStep[] {
  const avBench = path.join(`${ctx.out}-avtime`, 'bench');
  const runId = `demo-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-')}`;
  const outputRoot = path.join(`${ctx.out}-avtime`, 'outputs', runId);
  const freshBench = ctx.fresh || !existsSync(path.join(avBench, 'test.jsonl'));
  if (freshBench && existsSync(avBench)) rmSync(avBench, { recursive: true, force: true });
  const topology = ctx.standIn ? ['--target-gpus', '0;1', '--target-tp', '1', '--judge-gpus', '0', '--judge-tp', '1'] : [];
  const ports = ctx.takePorts ? ['--target-base-port', String(ctx.takePorts(2)), '--judge-base-port', String(ctx.takePorts(1))] : [];
  const models = ['--target-model', ctx.env.TARGET_MODEL || 'Qwen/Qwen3-Omni-30B-A3B-Instruct', '--judge-model', ctx.env.JUDGE_MODEL || 'Qwen/Qwen3.6-27B'];
  return [
    ...(freshBench ? [{ title: 'AVTime: make a sample bench root (ffmpeg, videos with audio)', argv: ['avtime', 'sample', '--out', avBench] }] : []),
    {
      title: 'AVTime-Bench run: target inference on 2 shards, normalize, judge, six scores',
      argv: ['avtime', 'run', '--bench-root', avBench, '--output-root', outputRoot, '--run-id', runId, ...models, ...topology, ...ports],
    },
    {
      title: 'AVTime run status',
      argv: ['status', '--package', outputRoot],
      doneLine: `AVTime run ${outputRoot} (scores: ${path.join(outputRoot, 'eval', runId, 'summary.json')})`,
    },
  ];
}
