// An AVTime run's report (SPEC-AVTIME §7), from its own artifacts: the six scores as a direction × axis table
// with counts, run identity highlights from run_config.json, and per-query traces joined to the video's
// predicted events (predictions.jsonl) and the judge answer that counted (semantic_responses.jsonl, by the
// trace's judge_response_id). Every value shown is read or derived here; the webview only lays it out.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { readOptionalJsonl } from '../../package/jsonl';
import { formatLineProblem } from '../../errors';
import { SCORE_KEYS } from './constants';
import { preflightRecordSchema, type AvtimePreflightRecord } from './stages/preflightSchema';
import { AvtimeOutputRoot } from './stages/layout';
import { runStartSchema } from './stages/runStart';
import type {
  AvtimeEventRow,
  AvtimeFact,
  AvtimeInterval,
  AvtimeIntervals,
  AvtimeJudgeAnswer,
  AvtimeQueryDetail,
  AvtimeQueryEntry,
  AvtimeQueryFilter,
  AvtimeQueryList,
  AvtimeReference,
  AvtimeReport,
  AvtimeScoreCell,
  ScoreAxis,
  ScoreDirection,
} from './reportTypes';
import { parseBoundedJson } from '../../io/boundedJson';

export type * from './reportTypes';

const interval = z.tuple([z.number(), z.number()]);
const traceBase = {
  query_id: z.string(),
  video_id: z.string(),
  axis: z.enum(['A', 'V']),
  status: z.string(),
  judge_response_id: z.string().nullable(),
  score: z.number(),
};
const t2eTrace = z
  .object({
    ...traceBase,
    direction: z.literal('t2e'),
    time_ms: z.number(),
    reference_captions: z.array(z.string()),
    active_ids: z.array(z.number()),
    active_intervals_ms: z.array(interval),
    judge_score: z.number().nullable(),
  })
  .passthrough();
const e2tTrace = z
  .object({
    ...traceBase,
    direction: z.literal('e2t'),
    reference_caption: z.string(),
    reference_interval_ms: interval,
    selected_ids: z.array(z.number()),
    selected_union_ms: z.array(interval),
    intersection_ms: z.number(),
    union_ms: z.number(),
    tiou: z.number(),
  })
  .passthrough();
const e2eTrace = z
  .object({
    ...traceBase,
    direction: z.literal('e2e'),
    reference_events: z.array(z.object({ caption: z.string(), interval_ms: interval })),
    reference_relation: z.string(),
    selected_ids_a: z.array(z.number()),
    selected_ids_b: z.array(z.number()),
    union_a_ms: z.array(interval),
    union_b_ms: z.array(interval),
    bounds_a_ms: interval.nullable(),
    bounds_b_ms: interval.nullable(),
    tolerance_ms: z.number().nullable(),
    predicted_relation: z.string().nullable(),
  })
  .passthrough();
export const traceLineSchema = z.discriminatedUnion('direction', [t2eTrace, e2tTrace, e2eTrace]);
export type TraceLine = z.infer<typeof traceLineSchema>;

const predictionSchema = z
  .object({
    id: z.string(),
    video_id: z.string(),
    duration_ms: z.number(),
    events: z.array(z.object({ start_pct: z.number(), end_pct: z.number(), start_ms: z.number(), end_ms: z.number(), caption: z.string() })),
  })
  .passthrough();
type PredictionLine = z.infer<typeof predictionSchema>;

const responseSchema = z
  .object({
    query_id: z.string(),
    request_type: z.string(),
    pass: z.number(),
    request_sha256: z.string(),
    model_id: z.string(),
    prompt_version: z.string(),
    response: z.unknown(),
    raw: z.string(),
    ts: z.string(),
  })
  .passthrough();
type ResponseLine = z.infer<typeof responseSchema>;

const summarySchema = z
  .object({
    ...(Object.fromEntries(SCORE_KEYS.map((k) => [k, z.number()])) as Record<(typeof SCORE_KEYS)[number], z.ZodNumber>),
    counts: z.record(z.string(), z.unknown()).optional(),
    prediction_failures: z.number().optional(),
  })
  .passthrough();

const ciSchema = z.object({ estimate: z.number(), lo: z.number(), hi: z.number(), videos: z.number() }).passthrough();
const summaryCiSchema = z
  .object({
    method: z.string(),
    seed: z.number(),
    replicates: z.number(),
    level: z.number(),
    videos: z.number(),
    scores: z.object(Object.fromEntries(SCORE_KEYS.map((k) => [k, ciSchema])) as Record<(typeof SCORE_KEYS)[number], typeof ciSchema>),
    audio_minus_visual: z.object({ t2e: ciSchema, e2t: ciSchema, e2e: ciSchema }),
  })
  .passthrough();

/** Everything the report needs, read once from the run's files. */
export interface LoadedAvtimeRun {
  runId: string;
  outputRoot: string;
  summary: z.infer<typeof summarySchema> | null;
  summaryCi: z.infer<typeof summaryCiSchema> | null;
  runConfig: Record<string, unknown> | null;
  canonical: boolean | null;
  traces: TraceLine[];
  predictions: Map<string, PredictionLine>;
  /** Response lines by request_sha256, the last line for an id winning (it is the one written last). */
  responses: Map<string, ResponseLine>;
  /** logs/preflight.json (SPEC-AVTIME §3), when the pre-flight ran in this root. */
  preflight: AvtimePreflightRecord | null;
  problems: string[];
}

async function readJsonFile(file: string): Promise<unknown | undefined> {
  try {
    return parseBoundedJson(await fs.readFile(file, 'utf8')) as unknown;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${file}: ${(err as Error).message}`);
  }
}

/** Reads the run at `outputRoot` (its run id from the run's start record, else the one folder under eval/). */
export async function loadAvtimeRun(outputRoot: string): Promise<LoadedAvtimeRun> {
  const o = new AvtimeOutputRoot(outputRoot);
  const root = o.root;
  const problems: string[] = [];
  const startRaw = await readJsonFile(o.runStart).catch((e: Error) => (problems.push(e.message), undefined));
  const start = runStartSchema.safeParse(startRaw);
  let runId: string;
  if (start.success) runId = start.data.run_id;
  else {
    const evals = await fs.readdir(o.evalRoot).catch(() => [] as string[]);
    runId = evals.length === 1 ? evals[0] : path.basename(root);
  }
  if (!/^[A-Za-z0-9._-]+$/.test(runId)) throw new Error(`${root}: run id '${runId}' is not a plain name`);

  const summaryFile = o.summaryOf(runId);
  const summaryRaw = await readJsonFile(summaryFile).catch((e: Error) => (problems.push(e.message), undefined));
  let summary: LoadedAvtimeRun['summary'] = null;
  if (summaryRaw !== undefined) {
    const s = summarySchema.safeParse(summaryRaw);
    if (s.success) summary = s.data;
    else problems.push(`${summaryFile}: ${s.error.issues[0].path.join('.')}: ${s.error.issues[0].message}`);
  }
  const ciFile = o.summaryCiOf(runId);
  const ciRaw = await readJsonFile(ciFile).catch((e: Error) => (problems.push(e.message), undefined));
  let summaryCi: LoadedAvtimeRun['summaryCi'] = null;
  if (ciRaw !== undefined) {
    const s = summaryCiSchema.safeParse(ciRaw);
    if (s.success) summaryCi = s.data;
    else problems.push(`${ciFile}: ${s.error.issues[0].path.join('.')}: ${s.error.issues[0].message}`);
  }
  const configRaw = await readJsonFile(o.runConfigOf(runId)).catch((e: Error) => (problems.push(e.message), undefined));
  const runConfig = configRaw && typeof configRaw === 'object' && !Array.isArray(configRaw) ? (configRaw as Record<string, unknown>) : null;

  const traces: TraceLine[] = [];
  for (const d of ['t2e', 'e2t', 'e2e'] as const) {
    const r = await readOptionalJsonl(o.traceOf(runId, d), traceLineSchema);
    traces.push(...r.records.map((x) => x.value));
    problems.push(...r.problems.map(formatLineProblem));
  }
  const preds = await readOptionalJsonl(o.predictions, predictionSchema);
  problems.push(...preds.problems.map(formatLineProblem));
  const predictions = new Map(preds.records.map((x) => [x.value.video_id, x.value]));
  const resp = await readOptionalJsonl(o.semanticResponses, responseSchema);
  problems.push(...resp.problems.map(formatLineProblem));
  const responses = new Map(resp.records.map((x) => [x.value.request_sha256, x.value]));
  const canonical = typeof runConfig?.canonical === 'boolean' ? runConfig.canonical : start.success ? start.data.canonical : null;
  const pre = preflightRecordSchema.safeParse(await readJsonFile(o.preflight).catch(() => undefined));
  const preflight = pre.success ? pre.data : null;
  return { runId, outputRoot: root, summary, summaryCi, runConfig, canonical, traces, predictions, responses, preflight, problems };
}

const DIRECTION_OF: Record<string, ScoreDirection> = { T2E: 't2e', E2T: 'e2t', E2E: 'e2e' };

function str(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

function get(o: unknown, ...keys: string[]): unknown {
  let v = o;
  for (const k of keys) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** The target pre-flight's outcome: each server's placeholder counts against the reference's (SPEC-AVTIME §3). */
export function preflightFacts(r: AvtimePreflightRecord | null): AvtimeFact[] {
  if (!r) return [];
  const c = (x: { video: number; audio: number } | null) => (x ? `video ${x.video}, audio ${x.audio}` : '—');
  return [
    { label: 'target pre-flight', value: r.ok ? 'ok: the placeholder counts are the reference preprocessing’s' : 'FAILED: stopped before any shard' },
    ...r.servers.map((s) => ({
      label: `pre-flight ${s.endpoint}`,
      value: `${s.input_id}: server ${c(s.got)}; reference ${c(s.predicted)}${s.problem ? ` — ${s.problem}` : ''}`,
    })),
  ];
}

/** The highlights of run_config.json a reader checks first; the whole file stays one click away. */
export function identityFacts(cfg: Record<string, unknown> | null): AvtimeFact[] {
  if (!cfg) return [];
  const facts: AvtimeFact[] = [];
  const add = (label: string, v: unknown) => v !== undefined && facts.push({ label, value: str(v) });
  add('run id', cfg.run_id);
  add('protocol', cfg.protocol);
  add('canonical', cfg.canonical);
  add('commit', cfg.commit);
  add('started', cfg.started_at);
  add('finished', cfg.finished_at);
  const versions = get(cfg, 'versions');
  if (versions && typeof versions === 'object')
    add(
      'versions',
      Object.entries(versions)
        .map(([k, v]) => `${k} ${str(v)}`)
        .join(', '),
    );
  for (const role of ['target', 'judge']) {
    const m = get(cfg, 'models', role);
    if (m) add(`${role} model`, `${str(get(m, 'model'))} (id ${str(get(m, 'model_id'))}, revision ${str(get(m, 'revision'))})`);
  }
  add('target prompt sha256', get(cfg, 'prompts', 'target', 'sha256'));
  add('target decoding', get(cfg, 'decoding', 'target'));
  add('judge decoding', get(cfg, 'decoding', 'judge'));
  for (const role of ['target', 'judge']) {
    const t = get(cfg, 'topology', role);
    if (t)
      add(
        `${role} topology`,
        `GPU groups ${str(get(t, 'gpu_groups'))}, TP ${str(get(t, 'tensor_parallel_size'))}` +
          `${get(t, 'shards') !== undefined ? `, ${str(get(t, 'shards'))} shard(s)` : ''}`,
      );
  }
  const nd = get(cfg, 'non_default_options');
  add('non-default options', nd && typeof nd === 'object' && Object.keys(nd).length === 0 ? 'none' : nd);
  return facts;
}

const pick = (x: z.infer<typeof ciSchema>): AvtimeInterval => ({ estimate: x.estimate, lo: x.lo, hi: x.hi, videos: x.videos });

/** summary_ci.json laid out per direction: A, V and the paired A − V. */
export function intervalsOf(ci: LoadedAvtimeRun['summaryCi']): AvtimeIntervals | null {
  if (!ci) return null;
  const rows = (['t2e', 'e2t', 'e2e'] as const).map((direction) => {
    const d = direction.toUpperCase() as 'T2E' | 'E2T' | 'E2E';
    return { direction, A: pick(ci.scores[`${d}-A`]), V: pick(ci.scores[`${d}-V`]), audioMinusVisual: pick(ci.audio_minus_visual[direction]) };
  });
  return { method: ci.method, seed: ci.seed, replicates: ci.replicates, level: ci.level, videos: ci.videos, rows };
}

export function avtimeReport(run: LoadedAvtimeRun, now = new Date()): AvtimeReport {
  const s = run.summary;
  const queries = (get(s?.counts, 'queries') ?? {}) as Record<string, unknown>;
  const scores: AvtimeScoreCell[] = s
    ? SCORE_KEYS.map((key) => {
        const [d, axis] = key.split('-');
        const n = queries[key];
        return { key, direction: DIRECTION_OF[d], axis: axis as ScoreAxis, score: s[key], queries: typeof n === 'number' ? n : null };
      })
    : [];
  const counts: AvtimeFact[] = Object.entries(s?.counts ?? {})
    .filter(([k]) => k !== 'queries')
    .map(([label, v]) => ({ label, value: str(v) }));
  return {
    kind: 'avtime',
    runId: run.runId,
    outputRoot: run.outputRoot,
    generatedAt: now.toISOString(),
    scored: s !== null,
    scores,
    intervals: s ? intervalsOf(run.summaryCi) : null,
    counts,
    predictionFailures: s?.prediction_failures ?? null,
    canonical: run.canonical,
    identity: [...preflightFacts(run.preflight), ...identityFacts(run.runConfig)],
    traces: run.traces.length,
    videos: [...new Set(run.traces.map((t) => t.video_id))].sort(),
    problems: run.problems.slice(0, 50),
  };
}

function entryOf(t: TraceLine): AvtimeQueryEntry {
  return { query_id: t.query_id, direction: t.direction, axis: t.axis, video_id: t.video_id, status: t.status, score: t.score };
}

/** A filter as it arrives from a webview, reduced to the fields and values a filter may hold. */
export function cleanFilter(raw: unknown): AvtimeQueryFilter {
  const f = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const out: AvtimeQueryFilter = {};
  if (f.direction === 't2e' || f.direction === 'e2t' || f.direction === 'e2e') out.direction = f.direction;
  if (f.axis === 'A' || f.axis === 'V') out.axis = f.axis;
  if (typeof f.video === 'string' && f.video) out.video = f.video.slice(0, 500);
  if (typeof f.text === 'string' && f.text) out.text = f.text.slice(0, 500);
  return out;
}

export function listQueries(run: LoadedAvtimeRun, f: AvtimeQueryFilter, limit = 200): AvtimeQueryList {
  const text = f.text?.trim().toLowerCase() ?? '';
  const hits = run.traces.filter(
    (t) =>
      (!f.direction || t.direction === f.direction) &&
      (!f.axis || t.axis === f.axis) &&
      (!f.video || t.video_id === f.video) &&
      (!text || t.query_id.toLowerCase().includes(text)),
  );
  return { total: hits.length, limit, shown: hits.slice(0, limit).map(entryOf) };
}

const iv = (x: readonly number[]) => `[${x[0]}, ${x[1]})`;
const ivs = (xs: readonly (readonly number[])[]) => (xs.length ? xs.map(iv).join(' ∪ ') : '∅');
const ids = (xs: readonly number[]) => (xs.length ? xs.join(', ') : 'none');
const num = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(4));

/** The interval arithmetic of one query, as its trace recorded every intermediate value. */
export function arithmetic(t: TraceLine, durationMs: number | null): AvtimeFact[] {
  const out: AvtimeFact[] = [];
  const add = (label: string, value: string) => out.push({ label, value });
  if (t.status === 'prediction_failure') {
    add('prediction', 'failure: no event line in the target answer for this video');
    add('score', '0');
    return out;
  }
  if (t.direction === 't2e') {
    add('t', `${t.time_ms} ms`);
    add('active ids (start_ms ≤ t < end_ms)', ids(t.active_ids));
    add('active intervals (ms)', ivs(t.active_intervals_ms));
    if (t.status === 'no_active_prediction') add('score', '0 (no active prediction: no judge call)');
    else {
      add('judge score s', `${t.judge_score ?? '—'} of 4`);
      add('score = s / 4', num(t.score));
    }
    return out;
  }
  if (t.direction === 'e2t') {
    add('selected ids', ids(t.selected_ids));
    add('∪ selected (ms)', ivs(t.selected_union_ms));
    add('reference (ms)', iv(t.reference_interval_ms));
    add('|∪ selected ∩ reference|', `${t.intersection_ms} ms`);
    add('|∪ selected ∪ reference|', `${t.union_ms} ms`);
    add('tIoU = |∩| / |∪|', t.selected_ids.length ? `${t.intersection_ms} / ${t.union_ms} = ${num(t.tiou)}` : '0 (no selection)');
    add('score', num(t.score));
    return out;
  }
  add('selected ids A (event 0)', ids(t.selected_ids_a));
  add('selected ids B (event 1)', ids(t.selected_ids_b));
  add('U_a (ms)', ivs(t.union_a_ms));
  add('U_b (ms)', ivs(t.union_b_ms));
  add('lo(U_a), hi(U_a)', t.bounds_a_ms ? `${t.bounds_a_ms[0]}, ${t.bounds_a_ms[1]}` : '— (empty)');
  add('lo(U_b), hi(U_b)', t.bounds_b_ms ? `${t.bounds_b_ms[0]}, ${t.bounds_b_ms[1]}` : '— (empty)');
  if (t.tolerance_ms !== null) add('τ = ⌈D / 100⌉', `${t.tolerance_ms} ms${durationMs !== null ? ` (D = ${durationMs} ms)` : ''}`);
  if (t.bounds_a_ms && t.bounds_b_ms && t.tolerance_ms !== null) {
    const [loA, hiA] = t.bounds_a_ms;
    const [loB, hiB] = t.bounds_b_ms;
    const tau = t.tolerance_ms;
    add('before iff hi(U_a) ≤ lo(U_b) + τ', `${hiA} ≤ ${loB + tau}: ${hiA <= loB + tau ? 'yes' : 'no'}`);
    add('after iff lo(U_a) ≥ hi(U_b) − τ', `${loA} ≥ ${hiB - tau}: ${loA >= hiB - tau ? 'yes' : 'no'}`);
  }
  add('predicted relation', t.predicted_relation ?? '— (a selection is empty)');
  add('reference relation', t.reference_relation);
  add(
    'score',
    `${num(t.score)}${t.predicted_relation ? (t.score === 1 ? ' (relations equal)' : ' (relations differ)') : ' (both selections must be non-empty)'}`,
  );
  return out;
}

function referenceOf(t: TraceLine): AvtimeReference {
  if (t.direction === 't2e') return { direction: 't2e', time_ms: t.time_ms, captions: t.reference_captions };
  if (t.direction === 'e2t') return { direction: 'e2t', caption: t.reference_caption, interval_ms: [t.reference_interval_ms[0], t.reference_interval_ms[1]] };
  return {
    direction: 'e2e',
    events: t.reference_events.map((e) => ({ caption: e.caption, interval_ms: [e.interval_ms[0], e.interval_ms[1]] })),
    relation: t.reference_relation,
  };
}

function marksOf(t: TraceLine, i: number): string[] {
  if (t.direction === 't2e') return t.active_ids.includes(i) ? ['active'] : [];
  if (t.direction === 'e2t') return t.selected_ids.includes(i) ? ['selected'] : [];
  return [...(t.selected_ids_a.includes(i) ? ['A'] : []), ...(t.selected_ids_b.includes(i) ? ['B'] : [])];
}

export function queryDetail(run: LoadedAvtimeRun, queryId: string): AvtimeQueryDetail {
  const t = run.traces.find((x) => x.query_id === queryId);
  if (!t) throw new Error(`no query ${queryId} in the traces of run ${run.runId}`);
  const p = t.status === 'prediction_failure' ? undefined : run.predictions.get(t.video_id);
  const events: AvtimeEventRow[] | null = p ? p.events.map((e, index) => ({ index, ...e, marks: marksOf(t, index) })) : null;
  let judge: AvtimeJudgeAnswer | null = null;
  let judgeMissing = false;
  if (t.judge_response_id !== null) {
    const r = run.responses.get(t.judge_response_id);
    if (r && r.query_id === t.query_id) {
      judge = {
        response_id: t.judge_response_id,
        request_type: r.request_type,
        pass: r.pass,
        model_id: r.model_id,
        prompt_version: r.prompt_version,
        response: r.response,
        raw: r.raw,
        ts: r.ts,
      };
    } else judgeMissing = true;
  }
  const duration = p?.duration_ms ?? null;
  return { entry: entryOf(t), reference: referenceOf(t), duration_ms: duration, events, judge, judgeMissing, arithmetic: arithmetic(t, duration) };
}
