// An AVTime-Bench run, stage by stage (SPEC-AVTIME §8–§9): inputs → infer → normalize → judge → score, each
// stage reading the artifacts of the one before. A new run needs a new (or empty) output root; everything
// the user gave is checked before the root is created, so bad input (exit 2) writes nothing. The only way
// back into an existing root is `--resume` of that run (or a later stage verb): canonical target shards are
// never resumed, normalization/judge/score continue from their artifacts. The root is locked while we write.
import { promises as fs, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { InputError, UsageError, formatLineProblem, type LineProblem } from '../../../errors';
import { readJsonl } from '../../../package/jsonl';
import { acquireLock, type HeldLock } from '../../../runner/lock';
import { QuerySchema, type Query } from '../queries';
import { judgeTemplate, type JudgeTemplate } from '../judge/prompts';
import { judgeMode, withJudgeMode } from '../judge/mode';
import { JUDGE_KINDS, type JudgeKind } from '../judge/schemas';
import type { Prediction, NormalizeOutcome } from '../normalize';
import { buildTargetInputs, writeTargetInputs } from './inputs';
import { targetInputSchema, TARGET_INPUT_LINE, type TargetInput } from './inputSchemas';
import { mediaStreamProblems } from './mediaStreams';
import { AvtimeRunLayout, BenchRoot, checkRunId } from './layout';
import { avtimeOptionsSchema, defaultRunId, modelId, STAGES, type AvtimeOptions, type AvtimeOptionsInput, type AvtimeVerb, type StageName } from './options';
import { checkCoverage, runInference, shardSummarySchema, assignShards } from './infer';
import { normalizeAll, readRawPredictions, runNormalize } from './normalizeStage';
import { judgeFailureLineSchema, runJudge, countedResponses, planJudge, judgeResponseLineSchema } from './judgeStage';
import { scoreAll, scoreLine, writeScores } from './scoreStage';
import { buildRunConfig } from './runConfig';
import { readServerRecords, startServers, type AvtimeServers } from './servers';
import { makeTargetPlanner, preflightStatus, runTargetPreflight } from './preflight';
import { AvtimeStatusWriter } from './statusWriter';
import { exists, sha256File, sha256Text, writeFileAtomic } from './files';

export interface AvtimeResult {
  exitCode: 0 | 1 | 2;
  /** The last line: what happened, in numbers. */
  line: string;
  outputRoot: string | null;
  runId: string | null;
}

export interface AvtimeHooks {
  log?: (line: string) => void;
  /** Called once the output root is locked (the detached worker's parent waits for the lock), with the status writer. */
  onLocked?: (layout: AvtimeRunLayout, status: AvtimeStatusWriter) => void;
  /** Server start timeout (tests). */
  startTimeoutMs?: number;
  /** Client knobs (tests shorten retries). */
  clientOptions?: { maxRetries?: number; baseDelayMs?: number; maxDelayMs?: number };
  /** Check the inputs and options, then stop before writing anything (`--detach` asks this first). */
  checkOnly?: boolean;
}

const runStartSchema = z.object({
  run_id: z.string(),
  started_at: z.string(),
  canonical: z.boolean(),
  options: z.record(z.string(), z.unknown()),
  /** The target shard count the run started with (a resume must keep it: shard membership is by count). */
  shards: z.number().int().positive().optional(),
  /** sha256 of the bench root's files the run started from; a resume refuses other bytes. */
  input_sha256: z.record(z.string(), z.string()).optional(),
});

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
] as const;

class StageFailed extends Error {}

/** The bench root's files a run is computed from (the target inputs are checked by their own rules). */
function benchInputFiles(bench: BenchRoot): Record<string, string> {
  return { test: bench.test, inventory: bench.inventory, manifest: bench.manifest, target_prompt: bench.prompt('target') };
}

async function hashInputs(files: Record<string, string>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [k, f] of Object.entries(files)) out[k] = await sha256File(f).catch(() => 'missing');
  return out;
}

/** The names of the files whose bytes differ from the run's start (none when the start recorded no hashes). */
async function changedInputs(recorded: Record<string, string> | undefined, files: Record<string, string>): Promise<string[]> {
  if (!recorded) return [];
  const now = await hashInputs(files);
  return Object.keys(recorded).filter((k) => recorded[k] !== now[k]);
}

function problemsError(what: string, problems: LineProblem[]): InputError {
  return new InputError(
    `${what} (${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing written):\n` +
      problems
        .slice(0, 30)
        .map((p) => `  ${formatLineProblem(p)}`)
        .join('\n'),
  );
}

async function readTargetInputs(file: string): Promise<TargetInput[]> {
  const { records, problems } = await readJsonl(file, targetInputSchema, { expected: TARGET_INPUT_LINE });
  if (problems.length) throw problemsError(`${file} is not a valid target-input file`, problems);
  return records.map((r) => r.value);
}

async function checkTargetInputMedia(file: string): Promise<void> {
  const { records } = await readJsonl(file, targetInputSchema, { expected: TARGET_INPUT_LINE });
  const refs = records.map(({ line, value }) => ({ file, line, media: value.videos[0], context: `video_id '${value.metadata.video_id}'` }));
  const problems = await mediaStreamProblems(refs);
  if (problems.length) {
    const listed = problems.map((p) => `  ${formatLineProblem(p)}`).join('\n');
    throw new InputError(`${file}: ${problems.length} media file(s) without a video or an audio stream (SPEC-AVTIME §2; nothing written):\n${listed}`);
  }
}

async function readQueries(file: string, videos: ReadonlySet<string>): Promise<Query[]> {
  let res;
  try {
    res = await readJsonl(file, QuerySchema, { expected: 'a query {"query_id", "video_id", "axis", "direction", ...} (SPEC-AVTIME §5)' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new InputError(`${file} does not exist (the bench root's private queries)`);
    throw err;
  }
  const problems = [...res.problems];
  const seen = new Map<string, number>();
  for (const { line, value } of res.records) {
    const first = seen.get(value.query_id);
    if (first !== undefined) problems.push({ file, line, message: `duplicate query_id '${value.query_id}' (first on line ${first})` });
    else seen.set(value.query_id, line);
    if (!videos.has(value.video_id)) problems.push({ file, line, message: `video_id '${value.video_id}' is not a target input` });
  }
  if (problems.length) throw problemsError(`${file}: bad queries`, problems);
  return res.records.map((r) => r.value);
}

async function readTemplates(bench: BenchRoot): Promise<Record<JudgeKind, JudgeTemplate>> {
  const out = {} as Record<JudgeKind, JudgeTemplate>;
  for (const kind of JUDGE_KINDS) {
    const file = bench.prompt(`judge_${kind}`);
    const text = await fs.readFile(file, 'utf8').catch((err) => ((err as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : Promise.reject(err)));
    try {
      out[kind] = judgeTemplate(kind, text);
    } catch (err) {
      throw new InputError(`${file}: ${(err as Error).message}`);
    }
  }
  return out;
}

/** The folder every target video lies under (real paths): vLLM's --allowed-local-media-path. */
export function mediaRoot(inputs: readonly TargetInput[]): string {
  const dirs = inputs.map((t) => path.dirname(realpathSync(t.videos[0])));
  let root = dirs[0] ?? '/';
  for (const d of dirs) while (root !== '/' && d !== root && !d.startsWith(root + path.sep)) root = path.dirname(root);
  return root;
}

/** Which stages this verb runs: `run` all of them; a stage verb itself. */
function stagesOf(verb: AvtimeVerb): StageName[] {
  return verb === 'run' ? [...STAGES] : [verb];
}

export async function runAvtime(verb: AvtimeVerb, input: AvtimeOptionsInput, hooks: AvtimeHooks = {}): Promise<AvtimeResult> {
  try {
    return await runAvtimeInner(verb, input, hooks);
  } catch (err) {
    if (err instanceof InputError || err instanceof UsageError) return { exitCode: 2, line: err.message, outputRoot: null, runId: null };
    throw err;
  }
}

async function runAvtimeInner(verb: AvtimeVerb, input: AvtimeOptionsInput, hooks: AvtimeHooks): Promise<AvtimeResult> {
  const log = hooks.log ?? ((l: string) => process.stderr.write(`avtime: ${l}\n`));
  const parsed = avtimeOptionsSchema.safeParse(input);
  if (!parsed.success) throw new UsageError(`bad options: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  let opts = parsed.data;
  let bench = new BenchRoot(opts.benchRoot);
  if (!(await exists(bench.root))) throw new InputError(`--bench-root ${bench.root} does not exist`);
  let targetInputsPath = path.resolve(opts.targetInputs ?? bench.targetInputs);
  let reportBeside = path.join(path.dirname(targetInputsPath), 'target_inputs_report.json');

  // Stage 1 alone writes only next to the target inputs.
  if (verb === 'inputs') {
    if (await exists(targetInputsPath)) {
      const rows = await readTargetInputs(targetInputsPath);
      return { exitCode: 0, line: `target inputs already present: ${targetInputsPath} (${rows.length} rows, not rebuilt)`, outputRoot: null, runId: null };
    }
    const built = await buildTargetInputs(bench.test, bench.inventory, targetInputsPath);
    await writeTargetInputs(built, targetInputsPath, [reportBeside]);
    const c = built.report.counts;
    return {
      exitCode: 0,
      line:
        `target inputs built: ${c.target_inputs} rows from ${c.test_rows} test rows and ${c.inventory_rows} inventory rows, ` +
        `${c.assistant_messages_removed} assistant messages removed → ${targetInputsPath}`,
      outputRoot: null,
      runId: null,
    };
  }

  // Where the run lives, and whether it is new.
  let targetId = modelId(opts.targetModel, opts.targetModelId, 'target');
  let judgeId = modelId(opts.judgeModel, opts.judgeModelId, 'judge');
  const continuing = opts.resume || verb === 'normalize' || verb === 'judge' || verb === 'score';
  if (continuing && !opts.runId && !opts.outputRoot) throw new UsageError(`--run-id (or --output-root) is required to continue a run`);
  const runId = checkRunId(opts.runId ?? (opts.outputRoot ? path.basename(path.resolve(opts.outputRoot)) : defaultRunId(targetId, judgeId)));
  const outputRoot = path.resolve(opts.outputRoot ?? path.join(process.cwd(), 'outputs', 'avtime-bench', runId));
  let layout = new AvtimeRunLayout(outputRoot, runId);
  const rootEntries = await fs.readdir(outputRoot).catch(() => null);
  let canonical = !opts.keepGoing;
  let startedAt = new Date().toISOString();
  let startShards: number | null = null;
  if (!continuing) {
    // `.fpsweep/` alone is not a run (a detached worker's log may be there first); anything else is.
    const runThere = rootEntries?.some((e) => e !== '.fpsweep') || (await exists(layout.runStart));
    if (runThere) {
      throw new InputError(
        `output root ${outputRoot} already exists and is not empty: a run's artifacts are immutable. ` +
          'Choose a new --run-id or --output-root (or continue that run with --resume)',
      );
    }
  } else {
    const start = await fs.readFile(layout.runStart, 'utf8').then(
      (t) => runStartSchema.parse(JSON.parse(t)),
      () => null,
    );
    if (!start) throw new InputError(`${outputRoot} holds no AVTime run to continue (no ${layout.runStart}); start one with \`fpsweep avtime run\``);
    layout = new AvtimeRunLayout(outputRoot, start.run_id);
    canonical = start.canonical;
    startedAt = start.started_at;
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
    targetInputsPath = storedInputs;
    reportBeside = path.join(path.dirname(targetInputsPath), 'target_inputs_report.json');
    const changed = await changedInputs(start.input_sha256, benchInputFiles(bench));
    if (changed.length)
      throw new InputError(`the bench root's files changed since this run started (${changed.join(', ')}): a run's inputs are fixed; start a new run`);
    startShards = start.shards ?? null;
    // The run's model ids are the stored options' (a resume need not repeat --judge-model): they are part of
    // the judge responses' identity (§6), so ids taken from the resume's own flags would reuse nothing.
    targetId = modelId(opts.targetModel, opts.targetModelId, 'target');
    judgeId = modelId(opts.judgeModel, opts.judgeModelId, 'judge');
    if (opts.keepGoing && canonical) log('--keep-going does not make a canonical run non-canonical: its target shards are never resumed');
  }

  // Everything the user gave, checked before anything is written.
  const promptFile = bench.prompt('target');
  const prompt = await fs.readFile(promptFile, 'utf8').catch(() => {
    throw new InputError(`${promptFile} does not exist (the frozen target prompt; the tool never writes it)`);
  });
  let built: Awaited<ReturnType<typeof buildTargetInputs>> | null = null;
  let inputs: TargetInput[];
  if (await exists(targetInputsPath)) {
    inputs = await readTargetInputs(targetInputsPath);
    // Target inputs built elsewhere (or by an older fpsweep) get the same stream check a build gets (§2).
    if (!continuing) await checkTargetInputMedia(targetInputsPath);
  } else {
    if (continuing) throw new InputError(`${targetInputsPath} is gone: this run's target inputs must stay where they were`);
    built = await buildTargetInputs(bench.test, bench.inventory, targetInputsPath);
    inputs = built.rows;
  }
  const queries = await readQueries(bench.manifest, new Set(inputs.map((t) => t.metadata.video_id)));
  const templates = withJudgeMode(await readTemplates(bench), judgeMode(opts.judgeThinking));
  const groups = opts.targetEndpoints?.length ? opts.targetEndpoints.length : opts.targetGpus.length;
  if (startShards !== null && groups !== startShards) {
    throw new UsageError(
      `this run has ${startShards} target shard(s); the resume's ${opts.targetEndpoints?.length ? '--target-endpoints' : '--target-gpus'} gives ${groups}: ` +
        "a resume keeps the run's shard count (rows are assigned by it)",
    );
  }
  const stages = stagesOf(verb);
  if (stages.includes('infer') && !opts.targetEndpoints?.length && !opts.targetModel)
    throw new UsageError('TARGET_MODEL (--target-model) or --target-endpoints is required');
  if (stages.includes('judge') && !opts.judgeEndpoint && !opts.judgeModel) throw new UsageError('JUDGE_MODEL (--judge-model) or --judge-endpoint is required');
  // The topology too, before the root exists: a refusal found at server start would leave a root behind
  // that a corrected run may not enter (immutable roots).
  const topology = [
    ['target', stages.includes('infer') && !opts.targetEndpoints?.length, opts.targetGpus, opts.targetTp],
    ['judge', stages.includes('judge') && !opts.judgeEndpoint, opts.judgeGpus, opts.judgeTp],
  ] as const;
  for (const [role, launched, gpuGroups, tp] of topology) {
    const bad = launched ? gpuGroups.find((g) => g.length !== tp) : undefined;
    if (bad) throw new UsageError(`--${role}-gpus group ${bad.join(',')} has ${bad.length} GPU(s) but --${role}-tp is ${tp}: a group holds exactly TP GPUs`);
  }

  // The stages before this verb's first must be complete; a refusal here, before the lock and the status
  // writer, leaves the root byte for byte as it was.
  const shards = assignShards(inputs, groups);
  for (const before of STAGES.slice(1, STAGES.indexOf(stages[0]))) {
    const problem = await stageIncomplete(before, layout, shards);
    if (problem) throw new InputError(problem);
  }
  if (stages.includes('infer')) {
    const problem = await inferRefusal(layout, shards, canonical);
    if (problem) throw new InputError(problem);
  }

  if (hooks.checkOnly)
    return {
      exitCode: 0,
      line: `checked: ${inputs.length} target inputs, ${queries.length} queries → ${layout.root}`,
      outputRoot: layout.root,
      runId: layout.runId,
    };

  // From here on we write: the root, its lock, the run's start record.
  await fs.mkdir(layout.root, { recursive: true });
  let lock: HeldLock;
  try {
    lock = await acquireLock(layout, layout.runId, log);
  } catch (err) {
    if (!continuing && !rootEntries) await fs.rm(layout.root, { recursive: true, force: true });
    throw err;
  }
  const status = new AvtimeStatusWriter(layout.statusFile, { runId: layout.runId, outputRoot: layout.root, canonical });
  status.start();
  hooks.onLocked?.(layout, status);
  const inputFiles = { test: bench.test, inventory: bench.inventory, manifest: bench.manifest, target_inputs: targetInputsPath, target_prompt: promptFile };
  let line = '';
  let exitCode: 0 | 1 | 2 = 0;
  const lines: string[] = [];
  const finish = (l: string) => {
    line = l;
  };
  const say = (l: string) => {
    lines.push(l);
    log(l);
  };
  try {
    // One function, so a stage verb can end the sequence with a plain return.
    await (async (): Promise<void> => {
      if (!continuing) {
        const input_sha256 = await hashInputs(benchInputFiles(bench));
        const start = { run_id: layout.runId, started_at: startedAt, canonical, options: opts, shards: groups, input_sha256 };
        await writeFileAtomic(layout.runStart, JSON.stringify(start, null, 1) + '\n');
      }
      // 1. inputs
      const st1 = status.stage('inputs');
      if (built) {
        await writeTargetInputs(built, targetInputsPath, [reportBeside, layout.targetInputsReport]);
        st1.state = 'done';
        st1.done = built.rows.length;
        say(`target inputs built: ${built.rows.length} rows → ${targetInputsPath}`);
      } else st1.state = 'skipped';

      // 2. infer (the stages before this verb's were checked before the lock)
      if (stages.includes('infer')) await inferStage(layout, opts, { inputs, prompt, canonical, groups, status, say, log, hooks, targetId });
      if (verb === 'infer') return finish(lines[lines.length - 1] ?? 'target inference: already complete');

      // 3. normalize
      let outcomes: NormalizeOutcome[];
      const st3 = status.stage('normalize');
      if (await exists(layout.predictionReport)) {
        const { raw } = await readRawPredictions(layout, groups);
        outcomes = normalizeAll(inputs, raw);
        st3.state = 'skipped';
      } else if (stages.includes('normalize')) {
        st3.state = 'running';
        const res = await runNormalize({ layout, inputs, shards: groups, modelId: targetId, modelPath: opts.targetModel, audioInVideo: opts.audioInVideo });
        outcomes = res.outcomes;
        st3.state = 'done';
        st3.done = outcomes.length;
        st3.failed = outcomes.filter((o) => o.kind === 'failure').length;
        say(res.line);
      } else throw new InputError((await stageIncomplete('normalize', layout, shards))!);
      const predictions = new Map<string, Prediction>();
      for (const o of outcomes) if (o.kind === 'ok') predictions.set(o.prediction.video_id, o.prediction);
      if (verb === 'normalize') return finish(lines[lines.length - 1] ?? `normalization: already complete (${layout.predictionReport})`);

      // 4. judge
      const st4 = status.stage('judge');
      let counted;
      const judgeReport = await fs.readFile(layout.semanticReport, 'utf8').then(
        (t) => JSON.parse(t) as { complete?: boolean; model_id?: string; served_model?: string },
        () => null,
      );
      if (judgeReport?.complete) {
        const planned = planJudge({ queries, predictions, templates, servedModel: judgeReport.served_model ?? '', modelId: judgeReport.model_id ?? judgeId });
        const stored = (await readJsonl(layout.semanticResponses, judgeResponseLineSchema)).records.map((r) => r.value);
        counted = countedResponses(planned, stored);
        st4.state = 'skipped';
      } else if (stages.includes('judge')) {
        counted = await judgeStage(layout, opts, { queries, predictions, templates, judgeId, status, say, log, hooks });
      } else throw new InputError((await stageIncomplete('judge', layout, shards))!);
      if (verb === 'judge') return finish(lines[lines.length - 1] ?? `judge: already complete (${layout.semanticReport})`);

      // 5. score
      const st5 = status.stage('score');
      {
        if (await exists(layout.runConfig)) {
          st5.state = 'skipped';
          line = `already scored: ${layout.summary}`;
        } else {
          st5.state = 'running';
          const { traces, summary, ci } = scoreAll(queries, outcomes, counted);
          await writeScores(layout, traces, summary, ci);
          const config = await buildRunConfig({
            layout,
            options: opts,
            canonical,
            startedAt,
            inputFiles,
            targetModelId: targetId,
            judgeModelId: judgeId,
            servers: await readServerRecords(layout),
            targetPromptSha256: sha256Text(prompt),
            templates,
            shards: groups,
          });
          await writeFileAtomic(layout.runConfig, JSON.stringify(config, null, 1) + '\n');
          st5.state = 'done';
          st5.done = traces.length;
          line = `${canonical ? '' : 'NON-CANONICAL '}${scoreLine(summary)} → ${layout.evalDir}`;
          say(line);
        }
      }
    })();
  } catch (err) {
    if (err instanceof StageFailed) {
      exitCode = 1;
      line = err.message;
    } else if (err instanceof InputError || err instanceof UsageError) {
      exitCode = 2;
      line = err.message;
    } else {
      exitCode = 1;
      line = `${verb} failed: ${(err as Error)?.message ?? String(err)}`;
      log((err as Error)?.stack ?? String(err));
    }
  } finally {
    await status.end(exitCode === 0 ? 'done' : 'failed', line);
    await lock.release();
  }
  return { exitCode, line, outputRoot: layout.root, runId: layout.runId };
}

/** null when `stage`'s artifacts are complete in the run; else the refusal for a verb that needs them. */
async function stageIncomplete(stage: StageName, layout: AvtimeRunLayout, shards: TargetInput[][]): Promise<string | null> {
  if (stage === 'infer') {
    const problem = await inferComplete(layout, shards);
    return problem && `infer has not completed: ${problem}; run \`fpsweep avtime infer\` (or \`run --resume\`) first`;
  }
  if (stage === 'normalize') {
    return (await exists(layout.predictionReport)) ? null : `normalization has not run in ${layout.root}: run \`fpsweep avtime normalize\` first`;
  }
  if (stage === 'judge') {
    const report = await fs.readFile(layout.semanticReport, 'utf8').then(
      (t) => JSON.parse(t) as { complete?: boolean },
      () => null,
    );
    return report?.complete ? null : `the judge has not completed in ${layout.root}: run \`fpsweep avtime judge\` first`;
  }
  return null; // inputs were read above; score is last
}

/** Why target inference may not (re)start in this root, or null: canonical shards never resume. */
async function inferRefusal(layout: AvtimeRunLayout, shards: TargetInput[][], canonical: boolean): Promise<string | null> {
  const done = await inferComplete(layout, shards);
  if (done === null) return null;
  const started = await Promise.all(shards.map((_, k) => exists(layout.rawPredictions(k))));
  if (!started.some(Boolean)) return null;
  if (canonical) {
    return (
      `target inference of this canonical run is incomplete (${done}): canonical shards never resume — ` +
      'start a new run (new --run-id), or start runs with --keep-going to allow --resume'
    );
  }
  // A non-canonical run's shards resume; that this is a resume at all is the non-empty-root rule's to decide.
  return null;
}

/** null when every shard has its summary, no failure and exact coverage; else what is missing. */
async function inferComplete(layout: AvtimeRunLayout, shards: TargetInput[][]): Promise<string | null> {
  for (let k = 0; k < shards.length; k++) {
    const s = await fs.readFile(layout.shardSummary(k), 'utf8').then(
      (t) => shardSummarySchema.parse(JSON.parse(t)),
      () => null,
    );
    if (!s) return `shard${k} has no summary`;
    if (s.failed) return `shard${k} had ${s.failed} failed row(s)`;
    const cov = await checkCoverage(
      layout.rawPredictions(k),
      shards[k].map((x) => x.id),
    );
    if (cov) return `shard${k}: ${cov}`;
  }
  return null;
}

interface StageCtx {
  status: AvtimeStatusWriter;
  say: (l: string) => void;
  log: (l: string) => void;
  hooks: AvtimeHooks;
}

async function inferStage(
  layout: AvtimeRunLayout,
  opts: AvtimeOptions,
  c: StageCtx & { inputs: TargetInput[]; prompt: string; canonical: boolean; groups: number; targetId: string },
): Promise<void> {
  const st = c.status.stage('infer');
  const shards = assignShards(c.inputs, c.groups);
  const done = await inferComplete(layout, shards);
  if (done === null) {
    st.state = 'skipped';
    return;
  }
  // Checked before the lock too (a refusal writes nothing); again here, under the lock, for what changed since.
  const refusal = await inferRefusal(layout, shards, c.canonical);
  if (refusal) throw new InputError(refusal);
  st.state = 'running';
  st.todo = c.inputs.length;
  c.status.status.shards = shards.map((rows, k) => ({ shard: k, endpoint: '', state: 'todo', expected: rows.length, written: 0, failed: 0 }));
  let servers: AvtimeServers | null = null;
  try {
    servers = await startServers({
      role: 'target',
      layout,
      model: opts.targetModel,
      revision: opts.targetRevision,
      groups: opts.targetGpus,
      tp: opts.targetTp,
      basePort: opts.targetBasePort,
      endpoints: opts.targetEndpoints,
      mediaRoot: mediaRoot(c.inputs),
      vllmBin: opts.targetVllmBin ?? opts.vllmBin,
      log: c.log,
      startTimeoutMs: c.hooks.startTimeoutMs,
    });
    const planFor = makeTargetPlanner(opts.audioInVideo);
    // SPEC-AVTIME §3 pre-flight: each server's first input, counted against the reference, before any shard.
    const pre = await runTargetPreflight({
      layout,
      firsts: shards.map((rows) => rows[0]),
      endpoints: servers.endpoints,
      model: servers.servedModel,
      prompt: c.prompt,
      audioInVideo: opts.audioInVideo,
      planFor,
      clientOptions: c.hooks.clientOptions,
    });
    c.status.status.preflight = preflightStatus(pre.record);
    c.say(pre.line);
    if (!pre.ok) {
      st.state = 'failed';
      throw new StageFailed(`${pre.line}; nothing later runs`);
    }
    const res = await runInference({
      layout,
      inputs: c.inputs,
      prompt: c.prompt,
      model: servers.servedModel,
      endpoints: servers.endpoints,
      audioInVideo: opts.audioInVideo,
      planFor,
      canonical: c.canonical,
      concurrency: opts.targetBatch,
      log: c.log,
      clientOptions: c.hooks.clientOptions,
      onProgress: (p) => {
        c.status.status.shards[p.shard] = { shard: p.shard, endpoint: p.endpoint, state: p.state, expected: p.expected, written: p.written, failed: p.failed };
        const all = c.status.status.shards;
        st.done = all.reduce((a, s) => a + s.written, 0);
        st.failed = all.reduce((a, s) => a + s.failed, 0);
        st.todo = c.inputs.length - st.done;
      },
    });
    c.say(res.line);
    st.state = res.ok ? 'done' : 'failed';
    if (!res.ok) throw new StageFailed(`${res.line}; nothing later runs`);
  } finally {
    await servers?.fleet.stop();
  }
}

async function judgeStage(
  layout: AvtimeRunLayout,
  opts: AvtimeOptions,
  c: StageCtx & { queries: Query[]; predictions: Map<string, Prediction>; templates: Record<JudgeKind, JudgeTemplate>; judgeId: string },
) {
  const st = c.status.stage('judge');
  st.state = 'running';
  let servers: AvtimeServers | null = null;
  try {
    servers = await startServers({
      role: 'judge',
      layout,
      model: opts.judgeModel,
      revision: opts.judgeRevision,
      groups: opts.judgeGpus,
      tp: opts.judgeTp,
      basePort: opts.judgeBasePort,
      endpoints: opts.judgeEndpoint ? [opts.judgeEndpoint] : undefined,
      vllmBin: opts.judgeVllmBin ?? opts.vllmBin,
      log: c.log,
      startTimeoutMs: c.hooks.startTimeoutMs,
    });
    const res = await runJudge({
      layout,
      queries: c.queries,
      predictions: c.predictions,
      templates: c.templates,
      modelId: c.judgeId,
      servedModel: servers.servedModel,
      endpoints: servers.endpoints,
      batch: { 1: opts.judgeBatch, 2: opts.judgeRetryBatch },
      log: c.log,
      clientOptions: c.hooks.clientOptions,
      waitUp: () => servers!.waitUntilUp(c.hooks.startTimeoutMs ?? 20 * 60_000),
      onProgress: (p) => {
        const passes = c.status.status.judgePasses;
        const entry = { pass: p.pass, maxTokens: p.maxTokens, state: p.state, requests: p.requests, done: p.done, failed: p.failed };
        const i = passes.findIndex((x) => x.pass === p.pass);
        if (i >= 0) passes[i] = entry;
        else passes.push(entry);
        // done: valid answers so far; failed: of the current pass (pass 1's go to the retry pass).
        st.done = passes.reduce((a, x) => a + x.done, 0);
        st.failed = p.failed;
        st.todo = Math.max(0, p.requests - p.done - p.failed);
      },
    });
    c.say(res.line);
    st.state = res.ok ? 'done' : 'failed';
    if (!res.ok) throw new StageFailed(`${res.line}; no scores written`);
    return res.counted;
  } finally {
    await servers?.fleet.stop();
  }
}

export { judgeFailureLineSchema };
