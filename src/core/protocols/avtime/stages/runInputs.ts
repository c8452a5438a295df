// Everything a run is computed from, read and checked before anything is written (bad input: exit 2, nothing
// written): the frozen target prompt, the target inputs (built in memory when absent), the private queries,
// the judge templates in the run's judge mode, the shard count, and what the verb's stages need to start
// servers (a model or endpoints, GPU groups of TP GPUs).
import { promises as fs } from 'node:fs';
import { InputError, UsageError, formatLineProblem, type LineProblem } from '../../../errors';
import { readJsonl } from '../../../package/jsonl';
import { QuerySchema, type Query } from '../queries';
import { judgeTemplate } from '../judge/prompts';
import type { JudgeTemplate } from '../judge/template';
import { judgeMode, withJudgeMode } from '../judge/mode';
import { JUDGE_KINDS, type JudgeKind } from '../judge/schemas';
import { buildTargetInputs, type BuiltTargetInputs } from './inputs';
import { targetInputSchema, TARGET_INPUT_LINE, type TargetInput } from './inputSchemas';
import { mediaStreamProblems } from './mediaStreams';
import type { BenchRoot } from './layout';
import { STAGES, type AvtimeVerb, type StageName } from './options';
import type { RunPlan } from './runPlan';
import { checkTopology } from './topology';
import { exists } from './files';
import { readTargetPrompt } from './targetPrompt';

export interface RunInputs {
  promptFile: string;
  prompt: string;
  /** The target inputs built by this run (absent before), written by the inputs stage; null when read. */
  built: BuiltTargetInputs | null;
  inputs: TargetInput[];
  queries: Query[];
  templates: Record<JudgeKind, JudgeTemplate>;
  /** Target shards: one per target server. */
  groups: number;
  /** The stages this verb runs. */
  stages: StageName[];
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

export async function readTargetInputs(file: string): Promise<TargetInput[]> {
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

/** Which stages this verb runs: `run` all of them; a stage verb itself. */
function stagesOf(verb: AvtimeVerb): StageName[] {
  return verb === 'run' ? [...STAGES] : [verb];
}

export async function readRunInputs(plan: RunPlan): Promise<RunInputs> {
  const { bench, opts, continuing, targetInputsPath } = plan;
  const { file: promptFile, text: prompt } = await readTargetPrompt(bench);
  let built: BuiltTargetInputs | null = null;
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
  if (plan.startShards !== null && groups !== plan.startShards) {
    const flag = opts.targetEndpoints?.length ? '--target-endpoints' : '--target-gpus';
    throw new UsageError(
      `this run has ${plan.startShards} target shard(s); the resume's ${flag} gives ${groups}: a resume keeps the run's shard count (rows are assigned by it)`,
    );
  }
  const stages = stagesOf(plan.verb);
  if (stages.includes('infer') && !opts.targetEndpoints?.length && !opts.targetModel)
    throw new UsageError('TARGET_MODEL (--target-model) or --target-endpoints is required');
  if (stages.includes('judge') && !opts.judgeEndpoint && !opts.judgeModel) throw new UsageError('JUDGE_MODEL (--judge-model) or --judge-endpoint is required');
  // The topology too, before the root exists: a refusal found at server start would leave a root behind
  // that a corrected run may not enter (immutable roots).
  if (stages.includes('infer') && !opts.targetEndpoints?.length) checkTopology('target', opts.targetGpus, opts.targetTp);
  if (stages.includes('judge') && !opts.judgeEndpoint) checkTopology('judge', opts.judgeGpus, opts.judgeTp);
  return { promptFile, prompt, built, inputs, queries, templates, groups, stages };
}
