// Where an AVTime-Bench run stands, for the progress tree (and anything else that asks): from the run's live
// status file while its worker is alive, else from the artifacts on disk, which are the truth — whole lines of
// inference/shard<k>/raw_predictions.jsonl against the shard's summary (or its share of the target inputs),
// predictions against prediction failures, judge requests/responses/failures per pass, summary.json present.
// Pure Node, no vscode. A reader never writes: it is safe on a root a worker is writing.
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { pidAlive, readLock } from '../../runner/lock';
import { SCORE_KEYS, type ScoreKey } from './constants';
import { STAGES, type StageName } from './stages/options';
import { splitShards } from './stages/shards';
import { preflightRecordSchema } from './stages/preflightSchema';
import { readAvtimeStatus, type AvtimeStatus, type ShardWaiting } from './stages/statusSchema';
import { AvtimeOutputRoot, BenchRoot } from './stages/layout';
import { readRunStart } from './stages/runStart';
import { parseBoundedJson } from '../../io/boundedJson';

/**
 * `stopped`: begun, not finished, and no live worker (a canonical run's incomplete shard means a new run).
 * `waiting`: a live shard whose server is unreachable (its view's `waiting` says which, since when, and the bound).
 */
export type AvtimeStepState = 'todo' | 'running' | 'waiting' | 'done' | 'failed' | 'skipped' | 'stopped';

export interface AvtimeStageView {
  name: StageName;
  state: AvtimeStepState;
  done: number;
  todo: number;
  failed: number;
}

export interface AvtimeShardView {
  shard: number;
  endpoint: string | null;
  state: AvtimeStepState;
  expected: number;
  written: number;
  failed: number;
  /** While `waiting` (live only): its server, unreachable since when, its words, and the rule's bound. */
  waiting?: ShardWaiting | null;
}

export interface AvtimePassView {
  pass: number;
  maxTokens: number | null;
  state: AvtimeStepState;
  requests: number;
  done: number;
  failed: number;
  /** While `waiting` (live only): its judge server, unreachable since when, its words, and the rule's bound. */
  waiting?: ShardWaiting | null;
}

/** The target pre-flight (SPEC-AVTIME §3): placeholder counts per server, against the reference's. */
export interface AvtimePreflightView {
  ok: boolean;
  servers: {
    endpoint: string;
    ok: boolean;
    predicted: { video: number; audio: number } | null;
    got: { video: number; audio: number } | null;
    problem: string | null;
  }[];
}

export interface AvtimeRunView {
  runId: string;
  outputRoot: string;
  source: 'worker' | 'artifacts';
  live: boolean;
  /** The run as a whole: running (live), done (summary.json), failed (a stage failed), stopped (begun, not ended), todo. */
  state: AvtimeStepState;
  canonical: boolean | null;
  startedAt: string | null;
  stages: AvtimeStageView[];
  shards: AvtimeShardView[];
  passes: AvtimePassView[];
  /** The target pre-flight once it has run (status file or logs/preflight.json). */
  preflight?: AvtimePreflightView | null;
  /** The run's last line (from the status file), when it has one. */
  summary: string | null;
  scores: Record<ScoreKey, number> | null;
}

const shardSummarySchema = z.object({ expected: z.number().int(), written: z.number().int(), failed: z.number().int() }).passthrough();
const judgeReportSchema = z
  .object({
    complete: z.boolean().optional(),
    passes: z.array(z.object({ pass: z.number().int(), max_tokens: z.number().int().optional() }).passthrough()).optional(),
  })
  .passthrough();
const summarySchema = z.object(Object.fromEntries(SCORE_KEYS.map((k) => [k, z.number()])) as Record<ScoreKey, z.ZodNumber>).passthrough();

/** Files whose presence marks a folder as an AVTime run's output root. */
const runMarkers = (o: AvtimeOutputRoot) => [o.runStart, o.statusFile, o.inferenceDir, o.predictions, o.evalRoot];

async function readJson<T>(file: string, schema: z.ZodType<T, z.ZodTypeDef, unknown>): Promise<T | null> {
  try {
    const r = schema.safeParse(parseBoundedJson(await fs.readFile(file, 'utf8')));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

async function exists(p: string): Promise<boolean> {
  return fs.stat(p).then(
    () => true,
    () => false,
  );
}

/** The whole (newline-ended) lines of a JSONL file that parse as objects; a torn last line is not one. */
export async function wholeJsonLines(file: string): Promise<Record<string, unknown>[]> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    return [];
  }
  const end = text.lastIndexOf('\n');
  const out: Record<string, unknown>[] = [];
  for (const line of text.slice(0, end + 1).split('\n')) {
    if (!line.trim()) continue;
    try {
      const v = parseBoundedJson(line) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      // A line that is not JSON is not progress; the stage that reads it reports it.
    }
  }
  return out;
}

function distinct(lines: Record<string, unknown>[], key: string, where: (l: Record<string, unknown>) => boolean = () => true): Set<string> {
  const s = new Set<string>();
  for (const l of lines) if (where(l) && typeof l[key] === 'string') s.add(l[key] as string);
  return s;
}

/** Output roots of AVTime runs directly under `dir` (e.g. outputs/avtime-bench), sorted by name. */
export async function discoverAvtimeRuns(dir: string): Promise<string[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of entries) {
    const root = path.join(dir, e.name);
    if (e.isDirectory() && (await isAvtimeRun(root))) out.push(root);
  }
  return out.sort();
}

/** Whether `dir` itself is an AVTime run's output root: one of the run's markers is in it (its parent is not read). */
export async function isAvtimeRun(dir: string): Promise<boolean> {
  for (const m of runMarkers(new AvtimeOutputRoot(path.resolve(dir)))) if (await exists(m)) return true;
  return false;
}

/**
 * The run's live status, when its file parses, says running, and its pid is alive — on this host, or, when the
 * output root's lock names that pid on another host (shared storage), taken as alive there, as the lock does.
 */
async function liveStatus(o: AvtimeOutputRoot, isAlive: (pid: number) => boolean): Promise<AvtimeStatus | null> {
  const s = await readAvtimeStatus(o.statusFile);
  if (!s || s.state !== 'running') return null;
  const lock = await readLock(o);
  const elsewhere = lock !== null && lock.pid === s.pid && lock.hostname !== os.hostname();
  return elsewhere || isAlive(s.pid) ? s : null;
}

export interface ReadProgressOptions {
  /** Whether a pid is alive (default: signal 0 on this host). */
  isAlive?: (pid: number) => boolean;
}

export async function readAvtimeProgress(root: string, o: ReadProgressOptions = {}): Promise<AvtimeRunView> {
  const out = new AvtimeOutputRoot(root);
  const outputRoot = out.root;
  const isAlive = o.isAlive ?? pidAlive;
  // eval/<RUN_ID>/summary.json: the run id from the run's start record, else the only folder under eval/.
  const scores = await readJson(out.summaryOf(await runIdOf(out)), summarySchema);
  const scoreRecord = scores ? (Object.fromEntries(SCORE_KEYS.map((k) => [k, scores[k]])) as Record<ScoreKey, number>) : null;
  const live = await liveStatus(out, isAlive);
  if (live) return { ...fromStatus(live, outputRoot), scores: scoreRecord };
  const anyStatus = await readAvtimeStatus(out.statusFile);
  return { ...(await fromArtifacts(outputRoot, anyStatus)), scores: scoreRecord };
}

async function runIdOf(o: AvtimeOutputRoot): Promise<string> {
  const start = await readRunStart(o);
  if (start) return start.run_id;
  const evals = await fs.readdir(o.evalRoot).catch(() => [] as string[]);
  return evals.length === 1 ? evals[0] : path.basename(o.root);
}

export function fromStatus(s: AvtimeStatus, outputRoot: string): Omit<AvtimeRunView, 'scores'> {
  return {
    runId: s.runId,
    outputRoot,
    source: 'worker',
    live: true,
    state: 'running',
    canonical: s.canonical,
    startedAt: s.startedAt,
    stages: STAGES.map((name) => {
      const st = s.stages.find((x) => x.name === name);
      return st ? { name, state: st.state, done: st.done, todo: st.todo, failed: st.failed } : { name, state: 'todo' as const, done: 0, todo: 0, failed: 0 };
    }),
    shards: s.shards.map((x) => ({
      shard: x.shard,
      endpoint: x.endpoint || null,
      state: x.state,
      expected: x.expected,
      written: x.written,
      failed: x.failed,
      ...(x.waiting ? { waiting: x.waiting } : {}),
    })),
    passes: s.judgePasses.map((p) => ({
      pass: p.pass,
      maxTokens: p.maxTokens,
      state: p.state,
      requests: p.requests,
      done: p.done,
      failed: p.failed,
      ...(p.waiting ? { waiting: p.waiting } : {}),
    })),
    preflight: s.preflight ?? null,
    summary: s.summary,
  };
}

/** How many target inputs the run has, from its start record's options (null when they cannot be read). */
async function targetInputCount(opts: Record<string, unknown> | undefined): Promise<number | null> {
  const file =
    typeof opts?.targetInputs === 'string' ? opts.targetInputs : typeof opts?.benchRoot === 'string' ? new BenchRoot(opts.benchRoot).targetInputs : null;
  if (!file) return null;
  if (!(await exists(file))) return null;
  return (await wholeJsonLines(file)).length;
}

function shardCount(opts: Record<string, unknown> | undefined, found: number): number {
  const eps = opts?.targetEndpoints;
  if (Array.isArray(eps) && eps.length) return eps.length;
  const gpus = opts?.targetGpus;
  if (Array.isArray(gpus) && gpus.length) return gpus.length;
  return found;
}

export async function fromArtifacts(outputRoot: string, lastStatus: AvtimeStatus | null = null): Promise<Omit<AvtimeRunView, 'scores'>> {
  const o = new AvtimeOutputRoot(outputRoot);
  const start = await readRunStart(o);
  const runId = start?.run_id ?? lastStatus?.runId ?? (await runIdOf(o));
  const opts = start?.options;

  // 2. inference: a shard's expected count from its summary, else its share of the target inputs.
  const shardDirs = (await fs.readdir(o.inferenceDir).catch(() => [] as string[])).filter((d) => /^shard\d+$/.test(d));
  const nShards = Math.max(shardCount(opts, shardDirs.length), ...shardDirs.map((d) => Number(d.slice(5)) + 1), 0);
  const nInputs = await targetInputCount(opts);
  const shares = nInputs !== null && nShards > 0 ? splitShards(Array.from({ length: nInputs }), nShards).map((x) => x.length) : null;
  const shards: AvtimeShardView[] = [];
  for (let k = 0; k < nShards; k++) {
    const lines = await wholeJsonLines(o.rawPredictions(k));
    const written = distinct(lines, 'id').size;
    const summary = await readJson(o.shardSummary(k), shardSummarySchema);
    const expected = summary?.expected ?? shares?.[k] ?? lastStatus?.shards.find((s) => s.shard === k)?.expected ?? written;
    const failed = summary?.failed ?? 0;
    const endpoint = typeof lines[0]?.endpoint === 'string' ? (lines[0].endpoint as string) : null;
    const state: AvtimeStepState = failed > 0 ? 'failed' : summary && written >= expected ? 'done' : written > 0 || summary ? 'stopped' : 'todo';
    shards.push({ shard: k, endpoint, state, expected, written, failed });
  }

  // 3. normalization
  const normalized = await exists(o.predictionReport);
  const predictions = (await wholeJsonLines(o.predictions)).length;
  const predictionFailures = (await wholeJsonLines(o.predictionFailures)).length;

  // 4. judge, per pass: distinct queries asked, answered validly, failed (and not answered in that pass).
  const requests = await wholeJsonLines(o.semanticRequests);
  const responses = await wholeJsonLines(o.semanticResponses);
  const failures = await wholeJsonLines(o.semanticFailures);
  const report = await readJson(o.semanticReport, judgeReportSchema);
  const passNumbers = [...new Set([...requests, ...responses, ...failures].map((l) => l.pass).filter((p): p is number => Number.isInteger(p)))].sort(
    (a, b) => a - b,
  );
  const passes: AvtimePassView[] = passNumbers.map((pass) => {
    const inPass = (l: Record<string, unknown>) => l.pass === pass;
    const asked = distinct(requests, 'query_id', inPass);
    const ok = distinct(responses, 'query_id', inPass);
    const bad = [...distinct(failures, 'query_id', inPass)].filter((q) => !ok.has(q));
    for (const q of [...ok, ...bad]) asked.add(q);
    const left = asked.size - ok.size - bad.length;
    const maxTokens = report?.passes?.find((p) => p.pass === pass)?.max_tokens ?? lastStatus?.judgePasses.find((p) => p.pass === pass)?.maxTokens ?? null;
    const state: AvtimeStepState = left > 0 ? 'stopped' : bad.length ? 'failed' : 'done';
    return { pass, maxTokens, state, requests: asked.size, done: ok.size, failed: bad.length };
  });

  // 5. scores
  const scored = await exists(o.summaryOf(runId));
  const traced = (await Promise.all((['t2e', 'e2t', 'e2e'] as const).map((d) => wholeJsonLines(o.traceOf(runId, d))))).reduce((a, x) => a + x.length, 0);

  const sum = (f: (s: AvtimeShardView) => number) => shards.reduce((a, s) => a + f(s), 0);
  const inferState: AvtimeStepState = !shards.length
    ? 'todo'
    : shards.some((s) => s.state === 'failed')
      ? 'failed'
      : shards.every((s) => s.state === 'done')
        ? 'done'
        : shards.some((s) => s.state !== 'todo')
          ? 'stopped'
          : 'todo';
  const inputsReport = await exists(o.targetInputsReport);
  const begun = shards.some((s) => s.state !== 'todo') || normalized;
  const lastPass = passes[passes.length - 1];
  const judgeState: AvtimeStepState = report?.complete
    ? 'done'
    : report && report.complete === false
      ? 'failed'
      : passes.length
        ? lastPass.state === 'failed' && lastPass.pass >= 2
          ? 'failed'
          : 'stopped'
        : 'todo';
  const judgeOk = passes.length ? distinct(responses, 'query_id').size : 0;
  const judgeLeft = lastPass ? lastPass.requests - lastPass.done - (judgeState === 'failed' ? lastPass.failed : 0) : 0;
  const stages: AvtimeStageView[] = [
    { name: 'inputs', state: inputsReport ? 'done' : begun ? 'skipped' : 'todo', done: nInputs ?? 0, todo: 0, failed: 0 },
    {
      name: 'infer',
      state: inferState,
      done: sum((s) => s.written),
      todo: sum((s) => Math.max(0, s.expected - s.written - s.failed)),
      failed: sum((s) => s.failed),
    },
    { name: 'normalize', state: normalized ? 'done' : 'todo', done: predictions, todo: normalized ? 0 : (nInputs ?? 0), failed: predictionFailures },
    { name: 'judge', state: judgeState, done: judgeOk, todo: Math.max(0, judgeLeft), failed: judgeState === 'failed' ? lastPass.failed : 0 },
    { name: 'score', state: scored ? 'done' : 'todo', done: scored ? traced : 0, todo: 0, failed: 0 },
  ];
  const failedStage = stages.some((s) => s.state === 'failed') || lastStatus?.state === 'failed';
  const state: AvtimeStepState = scored ? 'done' : failedStage ? 'failed' : stages.some((s) => s.state !== 'todo') ? 'stopped' : 'todo';
  return {
    runId,
    outputRoot,
    source: 'artifacts',
    live: false,
    state,
    canonical: start?.canonical ?? lastStatus?.canonical ?? null,
    startedAt: start?.started_at ?? lastStatus?.startedAt ?? null,
    stages,
    shards,
    passes,
    preflight: await readPreflightView(o),
    summary: lastStatus?.summary ?? null,
  };
}

async function readPreflightView(o: AvtimeOutputRoot): Promise<AvtimePreflightView | null> {
  const r = await readJson(o.preflight, preflightRecordSchema);
  return r && { ok: r.ok, servers: r.servers.map((x) => ({ endpoint: x.endpoint, ok: x.ok, predicted: x.predicted, got: x.got, problem: x.problem })) };
}

/** A waiting shard in words (status and tree): its server, unreachable since when, its words, and the bound. */
export function waitingWords(w: ShardWaiting): string {
  return `waiting on ${w.endpoint}, unreachable since ${w.since}: ${w.message}; the run stops if every server with work left stays so (${w.rule})`;
}

/** A stable fingerprint of a view: the tree refreshes a run's node only when this changes. */
export function viewKey(v: AvtimeRunView): string {
  return JSON.stringify(v);
}

/**
 * A cheap fingerprint of the files the artifact reader looks at (sizes and mtimes): a reader that sees the
 * same stamp for a run with no live worker need not count its lines again.
 */
export async function artifactStamp(root: string): Promise<string> {
  const o = new AvtimeOutputRoot(root);
  const files = [
    o.statusFile,
    o.runStart,
    o.preflight,
    o.targetInputsReport,
    o.predictions,
    o.predictionFailures,
    o.predictionReport,
    o.semanticRequests,
    o.semanticResponses,
    o.semanticFailures,
    o.semanticReport,
  ];
  const shardDirs = (await fs.readdir(o.inferenceDir).catch(() => [] as string[])).filter((d) => /^shard(0|[1-9]\d*)$/.test(d)).sort();
  for (const d of shardDirs) files.push(o.rawPredictions(Number(d.slice(5))), o.shardSummary(Number(d.slice(5))));
  const evals = (await fs.readdir(o.evalRoot).catch(() => [] as string[])).sort();
  for (const e of evals) files.push(o.summaryOf(e));
  const parts = await Promise.all(
    files.map((f) =>
      fs.stat(f).then(
        (s) => `${path.relative(o.root, f)}:${s.size}:${s.mtimeMs}`,
        () => `${path.relative(o.root, f)}:-`,
      ),
    ),
  );
  return parts.join('|');
}
