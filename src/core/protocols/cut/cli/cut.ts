// `fpsweep avtime cut --input-root DIR --output-root DIR --cutter CMD|builtin …` (SPEC-AVTIME-DATA §2): the flags
// resolved into the cut job and checked in the foreground (a refusal exits 2 and writes nothing; a shared stem is
// refused here, before any work), then --dry-run's plan, the job here, or with --detach the product's worker.
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import { InputError, UsageError } from '../../../errors';
import { numberFlag, parseCommandArgs, parseOptionsOrUsage, stringFlag, type OptionSpec } from '../../../cli/options';
import { rankShardOption } from '../../../cli/rankShard';
import { probe } from '../../../runner/probe';
import { parseCutterTemplate, usesPlaceholder } from '../cutterCommand';
import { discoverSources } from '../discover';
import { cutJobSchema, type CutJob } from '../jobSchema';
import { cutLanes, visibleGpus } from '../lanes';
import { CutLayout } from '../layout';
import { dryRunText, dryRunView } from '../dryRun';
import { mkdirUnder } from '../../../containment/rootFs';

const HELP = `usage: fpsweep avtime cut --input-root DIR --output-root DIR --cutter CMD|builtin [--config YAML]
         [--max-jobs N] [--jobs-per-gpu 4] [--shard K/N|auto] [--allow-degraded] [--dry-run [--json]] [--detach]

Cuts each complete video directly in --input-root (.mp4 .m4v .mov .mkv .avi .webm; not recursive) into
OUTPUT_ROOT/<stem>/segments.json + clips/clip_NNNN.mp4 + .mp3, each cut in OUTPUT_ROOT/.staging/<stem>/, checked by
the segments.json validator, then renamed into place: a failed cut publishes nothing and an earlier output stays.
State per video (source size + mtime) and logs: OUTPUT_ROOT/.fpsweep-cut/. Exit 0 only when every selected video is cut, 1 when any failed
or is pending, 2 on bad input (two files with one stem, bad flags).
  --cutter CMD        your AVCut, an argv template (not a shell line) with {input}, {staging} and {config}, e.g.
                      "python3 /opt/avcut/avcut.py {input} --config {config} --output-root {staging}"
                      (or a JSON array of strings); its output goes to .fpsweep-cut/logs/videos/<stem>.log
  --cutter builtin    ours, from ffmpeg's scene scores and silences only: no ASR, no audio events, so every cut
                      is marked degraded. For the demo, tests and a first look; it is not AVCut
  --config YAML       given to your cutter as {config}; the builtin's settings
  --allow-degraded    publish a cut whose detectors were not all available (a warning in the cutter's output, or
                      'unavailable' in segments.json detectors); without it such a cut fails
  --jobs-per-gpu N    videos at once per visible GPU (default 4), each pinned with CUDA_VISIBLE_DEVICES;
                      with no GPU visible: --max-jobs, else the host's cores
  --max-jobs N        at most N videos at once
  --shard K/N|auto    only rank K's videos (blake2b of the stem; auto: Slurm, Kubernetes, torchrun); state per rank
  --dry-run           discovery, signatures, shards and what would be cut; nothing written

Rerun: resumes: completed videos whose source (size + mtime) is unchanged are skipped, the rest cut (again).`;

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  'input-root': { type: 'string', meta: 'DIR', value: { kind: 'path', is: 'dir' } },
  'output-root': { type: 'string', meta: 'DIR', value: { kind: 'path', is: 'out-dir' } },
  cutter: { type: 'string' },
  config: { type: 'string', meta: 'YAML', value: { kind: 'path', is: 'file' } },
  'max-jobs': { type: 'string', meta: 'N', value: { kind: 'int', min: 1, max: 100_000 } },
  'jobs-per-gpu': { type: 'string', meta: 'N', value: { kind: 'int', min: 1, max: 1024, default: 4 } },
  shard: { type: 'string' },
  'allow-degraded': { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  detach: { type: 'boolean' },
  // Tests: the status tick.
  'tick-ms': { type: 'string', value: { kind: 'int', min: 50, max: 3_600_000, default: 1000 } },
} satisfies OptionSpec;
export const flags = OPTIONS;

function dirFlag(v: string | undefined, flag: string): string {
  if (!v) throw new UsageError(`${flag} DIR is required\n\n${HELP}`);
  return v;
}

/** nvidia-smi's GPU indices (none when it is missing). */
async function smiIndices(env: NodeJS.ProcessEnv): Promise<number[]> {
  const r = await probe('nvidia-smi', ['--query-gpu=index', '--format=csv,noheader'], env);
  return r.ok
    ? r.stdout
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => /^\d+$/.test(l))
        .map(Number)
    : [];
}

export async function cutJobFromArgs(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const v = parseCommandArgs(args, OPTIONS, false, HELP).values;
  // Absolute, --input-root an existing folder, --output-root not a file (the flag layer).
  const inputRoot = dirFlag(stringFlag(v, 'input-root'), '--input-root');
  const root = dirFlag(stringFlag(v, 'output-root'), '--output-root');
  const cutterText = stringFlag(v, 'cutter');
  if (!cutterText) throw new UsageError(`--cutter CMD|builtin is required\n\n${HELP}`);
  const cutter: CutJob['cutter'] = cutterText.trim() === 'builtin' ? { kind: 'builtin' } : { kind: 'command', argv: parseCutterTemplate(cutterText) };
  const configFile = stringFlag(v, 'config') ?? null;
  if (configFile) await fs.access(configFile).catch(() => Promise.reject(new InputError(`--config ${configFile} cannot be read`)));
  if (cutter.kind === 'command' && usesPlaceholder(cutter.argv, 'config') && !configFile) throw new UsageError('--cutter uses {config}: pass --config FILE');
  const gpus = visibleGpus(env, cutter.kind === 'builtin' ? [] : await smiIndices(env));
  const job = parseOptionsOrUsage(cutJobSchema, HELP, {
    root,
    inputRoot,
    cutter,
    configFile,
    allowDegraded: v['allow-degraded'] === true,
    lanes: cutLanes(cutter.kind === 'builtin' ? [] : gpus, numberFlag(v, 'jobs-per-gpu')!, numberFlag(v, 'max-jobs') ?? null, os.availableParallelism()),
    shard: rankShardOption(v.shard, env),
    tickMs: numberFlag(v, 'tick-ms'),
  });
  return { job, detach: v.detach === true, dryRun: v['dry-run'] === true, json: v.json === true };
}

export const summary = 'AVTime cut: complete videos into clips + segments.json, validated, published whole (avtime cut …)';

export async function run(args: string[]): Promise<number> {
  const { job, detach, dryRun, json } = await cutJobFromArgs(args);
  const layout = new CutLayout(job.root, job.shard);
  if (dryRun) {
    const view = await dryRunView(layout, job);
    process.stdout.write((json ? JSON.stringify(view, null, 1) : dryRunText(view)) + '\n');
    return 0;
  }
  // Refused before any work: two files with one stem (the job reads the same list again, under its lock).
  await discoverSources(job.inputRoot);
  await mkdirUnder(job.root, job.root);
  if (!detach) {
    const { runCutJob } = require('../job') as typeof import('../job');
    return runCutJob(job);
  }
  const { spawnDetached } = require('../../../runner/control') as typeof import('../../../runner/control');
  const w = await spawnDetached({ protocol: 'cut', job, root: layout.runRoot, lockName: 'cut lock', cwd: job.root });
  process.stdout.write(`cut worker pid ${w.pid} started; log ${w.logFile}; status: fpsweep status --package ${job.root} --run-type cut\n`);
  return 0;
}
