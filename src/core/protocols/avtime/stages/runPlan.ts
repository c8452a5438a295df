// Where a run lives and with which options, before anything is read or written: a new run needs a new (or
// empty) output root; the only way back into an existing one is `--resume` of that run (or a later stage verb),
// which takes the run's stored options, bench root and target inputs — a resume may change only where the
// servers are and how hard they are pushed (RUNTIME_KEYS), never what is computed.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { InputError, UsageError } from '../../../errors';
import { judgeMode } from '../judge/mode';
import { AvtimeRunLayout, BenchRoot, checkRunId, defaultOutputRoot, targetInputsReportBeside } from './layout';
import { avtimeOptionsSchema, defaultRunId, modelId, type AvtimeOptions, type AvtimeOptionsInput, type AvtimeVerb } from './options';
import { benchInputFiles, changedInputs, readRunStart } from './runStart';
import { exists } from './files';
import { existsUnder } from '../../../containment/rootFs';
import { canonicalInferUnfinished } from './completeness';
import { newRunWords } from './stopAdvice';

/** Options a resume may change: where the servers are and how hard to push them, never what is computed. */
const RUNTIME_KEYS = [
  'targetEndpoints',
  'judgeEndpoint',
  'vllmBin',
  'targetVllmBin',
  'judgeVllmBin',
  'targetGpus',
  'targetTp',
  'judgeGpus',
  'judgeTp',
  'targetBatch',
  'judgeBatch',
  'judgeRetryBatch',
  'targetBasePort',
  'judgeBasePort',
  'failDownS',
] as const;

/** A verb's run: where, with what, and whether it continues a run already in the root. */
export interface RunPlan {
  verb: AvtimeVerb;
  opts: AvtimeOptions;
  bench: BenchRoot;
  layout: AvtimeRunLayout;
  targetInputsPath: string;
  /** The report a target-inputs build writes beside the target inputs. */
  targetInputsReport: string;
  /** --resume, or a stage verb after infer: the run's start record is read back. */
  continuing: boolean;
  canonical: boolean;
  startedAt: string;
  /** The shard count the run started with (null for a new run). */
  startShards: number | null;
  /** The model ids recorded for the target and the judge (the stored options' on a resume). */
  targetId: string;
  judgeId: string;
  /** The output root existed before this verb (a refusal never removes it). */
  rootExisted: boolean;
}

export function parseAvtimeOptions(input: AvtimeOptionsInput): AvtimeOptions {
  const parsed = avtimeOptionsSchema.safeParse(input);
  if (!parsed.success) throw new UsageError(`bad options: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

export async function planRun(verb: AvtimeVerb, input: AvtimeOptionsInput, given: AvtimeOptions, log: (l: string) => void): Promise<RunPlan> {
  let opts = given;
  let bench = new BenchRoot(opts.benchRoot);
  if (!(await exists(bench.root))) throw new InputError(`--bench-root ${bench.root} does not exist`);
  let targetId = modelId(opts.targetModel, opts.targetModelId, 'target');
  let judgeId = modelId(opts.judgeModel, opts.judgeModelId, 'judge');
  const continuing = opts.resume || verb === 'normalize' || verb === 'judge' || verb === 'score';
  if (continuing && !opts.runId && !opts.outputRoot) throw new UsageError(`--run-id (or --output-root) is required to continue a run`);
  const runId = checkRunId(opts.runId ?? (opts.outputRoot ? path.basename(path.resolve(opts.outputRoot)) : defaultRunId(targetId, judgeId)));
  const outputRoot = path.resolve(opts.outputRoot ?? defaultOutputRoot(runId));
  let layout = new AvtimeRunLayout(outputRoot, runId);
  const rootEntries = await fs.readdir(outputRoot).catch(() => null);
  const plan = {
    verb,
    bench,
    layout,
    continuing,
    canonical: !opts.keepGoing,
    startedAt: new Date().toISOString(),
    startShards: null as number | null,
    rootExisted: rootEntries !== null,
  };
  if (!continuing) {
    // The state folder alone is not a run (a detached worker's log may be there first); anything else is.
    const stateName = path.basename(layout.stateDir);
    // The start record is looked for without following a link (one planted there is refused with its path).
    const runThere = rootEntries?.some((e) => e !== stateName) || (await existsUnder(outputRoot, layout.runStart));
    if (runThere) {
      // "--resume" is offered only where it would be taken: a canonical run whose target shards did not finish never resumes.
      const start = (await existsUnder(outputRoot, layout.runStart)) ? await readRunStart(layout) : null;
      const next = (await canonicalInferUnfinished(layout, start))
        ? `Start a new run (${newRunWords(!!opts.outputRoot)}): this root's run is canonical and its target shards did not ` +
          'finish, so it never resumes (SPEC-AVTIME §3); its artifacts stay as they are'
        : 'Choose a new --run-id or --output-root (or continue that run with --resume)';
      throw new InputError(`output root ${outputRoot} already exists and is not empty: a run's artifacts are immutable. ${next}`);
    }
    const targetInputsPath = path.resolve(opts.targetInputs ?? bench.targetInputs);
    return { ...plan, opts, targetInputsPath, targetInputsReport: targetInputsReportBeside(targetInputsPath), targetId, judgeId };
  }
  const start = (await existsUnder(outputRoot, layout.runStart)) ? await readRunStart(layout) : null;
  if (!start) throw new InputError(`${outputRoot} holds no AVTime run to continue (no ${layout.runStart}); start one with \`fpsweep avtime run\``);
  layout = new AvtimeRunLayout(outputRoot, start.run_id);
  const stored = avtimeOptionsSchema.parse(start.options);
  const runtime: Partial<AvtimeOptions> = {};
  for (const k of RUNTIME_KEYS) if ((input as Record<string, unknown>)[k] !== undefined) (runtime as Record<string, unknown>)[k] = opts[k];
  // The run's bench root and target inputs are the stored ones: another bench named on a resume is refused,
  // never read (normalize, judge and score would mix two benches, and run_config would name the wrong files).
  const storedBench = path.resolve(stored.benchRoot);
  if (path.resolve(opts.benchRoot) !== storedBench) {
    throw new InputError(
      `this run's bench root is ${storedBench}; --bench-root ${path.resolve(opts.benchRoot)} is another: continue a run on its own bench root`,
    );
  }
  const storedInputs = path.resolve(stored.targetInputs ?? new BenchRoot(storedBench).targetInputs);
  if (opts.targetInputs !== undefined && path.resolve(opts.targetInputs) !== storedInputs) {
    throw new InputError(`this run's target inputs are ${storedInputs}; --target-inputs ${path.resolve(opts.targetInputs)} is another`);
  }
  // The judge's mode is part of every response's identity: a resume in the other mode would mix two judges.
  if (input.judgeThinking !== undefined && input.judgeThinking !== stored.judgeThinking) {
    throw new UsageError(
      `this run's judge is ${judgeMode(stored.judgeThinking)}; this resume asks for ${judgeMode(input.judgeThinking)}: ` +
        `a run never mixes the two modes (the mode is in each judge response's identity). ` +
        `Resume ${stored.judgeThinking ? 'with --judge-thinking' : 'without --judge-thinking'}, or start a new run (new --run-id)`,
    );
  }
  opts = { ...stored, ...runtime, resume: opts.resume, keepGoing: opts.keepGoing };
  bench = new BenchRoot(storedBench);
  const changed = await changedInputs(start.input_sha256, benchInputFiles(bench));
  if (changed.length)
    throw new InputError(`the bench root's files changed since this run started (${changed.join(', ')}): a run's inputs are fixed; start a new run`);
  // The run's model ids are the stored options' (a resume need not repeat --judge-model): they are part of
  // the judge responses' identity (§6), so ids taken from the resume's own flags would reuse nothing.
  targetId = modelId(opts.targetModel, opts.targetModelId, 'target');
  judgeId = modelId(opts.judgeModel, opts.judgeModelId, 'judge');
  if (opts.keepGoing && start.canonical) log('--keep-going does not make a canonical run non-canonical: its target shards are never resumed');
  return {
    ...plan,
    opts,
    bench,
    layout,
    canonical: start.canonical,
    startedAt: start.started_at,
    startShards: start.shards ?? null,
    targetInputsPath: storedInputs,
    targetInputsReport: targetInputsReportBeside(storedInputs),
    targetId,
    judgeId,
  };
}
