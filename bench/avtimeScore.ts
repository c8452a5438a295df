// AVTime normalization + scoring benchmark (not a test):
//   npx tsx bench/avtimeScore.ts [--videos N] [--seed S]
// Workload (deterministic, seeded): N videos (default 300, the HQ300 size), each a raw target answer of 30–80
// "From XX to YY, caption" lines with realistic captions (8–22 words), ~15 % followed by a near-duplicate one
// edit away and adjacent in time (so the merge's ratio runs and sometimes merges), a few prose lines, and 2 %
// answers without any event line (prediction failures). Queries: 24 per video (t2e/e2t/e2e × A/V × 4), each
// with a judge answer as raw JSON text.
// Timed: (1) normalization: JSON.parse of each raw_predictions line + normalizePrediction; (2) scoring:
// parseJudgeResponse + scoreQuery for every query + summarize. Baseline, same run: JSON.parse alone of the
// same raw prediction lines and judge answers. Target: (1) + (2) < 1 s. Also timed, apart: (3) the score
// stage's summary_ci.json (bootstrapSummary, the run's default 2000 replicates) over the same traces.
import { performance } from 'node:perf_hooks';
import { parseJudgeResponse } from '../src/core/protocols/avtime/judge/response';
import { bootstrapSummary, DEFAULT_BOOTSTRAP } from '../src/core/protocols/avtime/stats/bootstrap';
import { needsJudge, requestKind, shownEventIds } from '../src/core/protocols/avtime/judge/request';
import { type NormalizeOutcome, countOutcomes, normalizePrediction } from '../src/core/protocols/avtime/normalize';
import type { Query } from '../src/core/protocols/avtime/queries';
import { type AnyJudged, type QueryTrace, scoreQuery, summarize } from '../src/core/protocols/avtime/scores';
import { SeededRandom } from '../src/core/seededRandom';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}
const VIDEOS = arg('videos', 300);
const random = new SeededRandom(arg('seed', 20261203));
const rand = () => random.next();
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

const SUBJECTS = [
  'a man in a grey jacket',
  'a young woman',
  'two children',
  'the presenter',
  'a crowd of people',
  'a brown dog',
  'the narrator',
  'an old man with glasses',
  'a chef',
];
const VERBS = [
  'speaks calmly to the camera about',
  'walks slowly along',
  'points at',
  'laughs loudly near',
  'plays a cheerful tune next to',
  'explains the steps of',
  'looks around',
  'sings softly beside',
];
const OBJECTS = [
  'the busy street market',
  'a wooden table covered with tools',
  'the kitchen counter',
  'a large red car',
  'the stage lights',
  'the river bank at sunset',
  'a small whiteboard',
  'the crowded train platform',
];
const TAILS = [
  'while music plays in the background',
  'as a car horn sounds',
  'and the audience applauds',
  'with birds chirping nearby',
  '',
  '',
  'while rain falls on the roof',
];
const caption = () => [pick(SUBJECTS), pick(VERBS), pick(OBJECTS), pick(TAILS)].filter(Boolean).join(' ') + pick(['.', '', '.']);
function nearDuplicate(c: string): string {
  const cps = Array.from(c);
  const p = int(0, cps.length - 1);
  const r = rand();
  if (r < 0.4) cps.splice(p, 1);
  else if (r < 0.8) cps.splice(p, 0, 's');
  else cps[p] = 'e';
  return cps.join('');
}
const pad = (n: number) => String(n).padStart(2, '0');

interface Video {
  rawLine: string;
  durationMs: number;
  queries: Query[];
  judgeRaw: string[];
}

function makeVideo(v: number): Video {
  const durationMs = int(30_000, 600_000);
  const lines: string[] = [];
  if (rand() < 0.3) lines.push('Here are the events in the video:');
  const failure = rand() < 0.02;
  const n = int(30, 80);
  for (let k = 0; k < n && !failure; k++) {
    const s = int(0, 97);
    const e = Math.min(99, s + int(0, 8));
    const c = caption();
    lines.push(`From ${pad(s)} to ${pad(e)}, ${c}`);
    if (rand() < 0.15) lines.push(`From ${pad(Math.min(e + int(-1, 1), 99))} to ${pad(Math.min(99, e + int(1, 5)))}, ${nearDuplicate(c)}`);
    if (rand() < 0.03) lines.push('(the audio is unclear here)');
  }
  if (failure) lines.push('I am unable to describe this video.');
  const id = `video_${String(v).padStart(4, '0')}`;
  const response = lines.join('\n');
  const rawLine = JSON.stringify({
    id: `rec_${v}`,
    video_id: id,
    response,
    finish_reason: 'stop',
    usage: { completion_tokens: response.length >> 2 },
    latency_s: 1.5,
    endpoint: 'http://127.0.0.1:8000',
    ts: '2026-12-03T00:00:00Z',
  });
  const queries: Query[] = [];
  const judgeRaw: string[] = [];
  const maxIdx = n + 10; // indices are drawn below the smallest event count a merge can leave
  for (const axis of ['A', 'V'] as const) {
    for (let k = 0; k < 4; k++) {
      const t = int(0, durationMs - 1);
      queries.push({ query_id: `${id}_t2e_${axis}${k}`, video_id: id, axis, direction: 't2e', time_ms: t, reference_captions: [caption(), caption()] });
      judgeRaw.push(`{"score": ${int(0, 4)}}`);
      const s = int(0, durationMs - 2000);
      queries.push({
        query_id: `${id}_e2t_${axis}${k}`,
        video_id: id,
        axis,
        direction: 'e2t',
        reference_caption: caption(),
        reference_interval_ms: [s, s + int(1000, 1999)],
      });
      judgeRaw.push(JSON.stringify({ indices: Array.from({ length: int(0, 3) }, () => int(0, maxIdx)) }));
      queries.push({
        query_id: `${id}_e2e_${axis}${k}`,
        video_id: id,
        axis,
        direction: 'e2e',
        events: [
          { caption: caption(), interval_ms: [s, s + 1000] },
          { caption: caption(), interval_ms: [s + 500, s + 1900] },
        ],
        relation: pick(['before', 'after', 'overlap'] as const),
      });
      judgeRaw.push(
        JSON.stringify({
          indices_a: Array.from({ length: int(0, 2) }, () => int(0, maxIdx)),
          indices_b: Array.from({ length: int(1, 2) }, () => int(0, maxIdx)),
        }),
      );
    }
  }
  return { rawLine, durationMs, queries, judgeRaw };
}

const videos = Array.from({ length: VIDEOS }, (_, v) => makeVideo(v));

function normalizeAll(): NormalizeOutcome[] {
  return videos.map((v) => {
    const raw = JSON.parse(v.rawLine) as { id: string; video_id: string; response: string };
    return normalizePrediction({ id: raw.id, video_id: raw.video_id, duration_ms: v.durationMs, response: raw.response });
  });
}

// Once, untimed: clamp the synthetic indices to what each normalized prediction shows (a real judge only
// sees those), as the judge stage would have stored them.
{
  const outcomes = normalizeAll();
  videos.forEach((v, i) => {
    const o = outcomes[i];
    v.queries.forEach((q, k) => {
      if (q.direction === 't2e') return; // a score, not indices
      const n = o.kind === 'ok' ? shownEventIds(q, o.prediction).length : 1;
      v.judgeRaw[k] = v.judgeRaw[k].replace(/\d+/g, (d) => String(Number(d) % Math.max(n, 1)));
    });
  });
}

function scoreAll(outcomes: NormalizeOutcome[]): { traces: QueryTrace[]; judgeParsed: number } {
  const traces: QueryTrace[] = [];
  let judgeParsed = 0;
  videos.forEach((v, i) => {
    const o = outcomes[i];
    v.queries.forEach((q, k) => {
      let judged: AnyJudged | null = null;
      if (o.kind === 'ok' && needsJudge(q, o.prediction)) {
        const n = shownEventIds(q, o.prediction).length;
        const r = parseJudgeResponse(requestKind(q), v.judgeRaw[k], n);
        if (!r.ok) throw new Error(`bench data: ${r.reason} ${r.detail}`);
        judgeParsed++;
        judged = { response_id: `${q.query_id}:1`, value: r.value } as AnyJudged;
      }
      traces.push(scoreQuery(q, o, judged));
    });
  });
  return { traces, judgeParsed };
}

function baseline(): number {
  let n = 0;
  for (const v of videos) {
    n += (JSON.parse(v.rawLine) as { response: string }).response.length;
    for (const j of v.judgeRaw) n += Object.keys(JSON.parse(j) as object).length;
  }
  return n;
}

const time = <T>(f: () => T): [T, number] => {
  const t0 = performance.now();
  const r = f();
  return [r, performance.now() - t0];
};

// One warm-up round (JIT), then the best of 5 rounds for each part.
let best = { norm: Infinity, score: Infinity, base: Infinity };
let last: { outcomes: NormalizeOutcome[]; traces: QueryTrace[]; judgeParsed: number } | undefined;
for (let round = 0; round < 6; round++) {
  const [outcomes, tn] = time(normalizeAll);
  const [{ traces, judgeParsed }, ts] = time(() => {
    const r = scoreAll(outcomes);
    summarize(r.traces, outcomes.filter((o) => o.kind === 'failure').length);
    return r;
  });
  const [, tb] = time(baseline);
  if (round > 0) best = { norm: Math.min(best.norm, tn), score: Math.min(best.score, ts), base: Math.min(best.base, tb) };
  else console.log(`cold (first round): normalize ${tn.toFixed(0)} ms, score ${ts.toFixed(0)} ms, JSON.parse baseline ${tb.toFixed(1)} ms`);
  last = { outcomes, traces, judgeParsed };
}
const c = countOutcomes(last!.outcomes);
const s = summarize(last!.traces, c.failures);
console.log(
  `${VIDEOS} videos: ${c.parsed_events} event lines (${(c.parsed_events / VIDEOS).toFixed(1)}/video), ${c.merged_away} merged away, ` +
    `${c.failures} prediction failures, ${c.warnings} warnings; ${last!.traces.length} queries, ${last!.judgeParsed} judge answers`,
);
console.log(
  `scores: ${['T2E-A', 'T2E-V', 'E2T-A', 'E2T-V', 'E2E-A', 'E2E-V'].map((k) => `${k} ${(s as unknown as Record<string, number>)[k].toFixed(3)}`).join(', ')}`,
);
const total = best.norm + best.score;
console.log(
  `best of 5: normalize ${best.norm.toFixed(1)} ms + score ${best.score.toFixed(1)} ms = ${total.toFixed(1)} ms (target < 1000 ms); ` +
    `JSON.parse of the same lines ${best.base.toFixed(1)} ms; ratio ${(total / best.base).toFixed(1)}×`,
);
const scored = last!.traces.map((t) => ({ video_id: t.video_id, key: `${t.direction.toUpperCase()}-${t.axis}` as 'T2E-A', score: t.score }));
let bestCi = Infinity;
for (let round = 0; round < 3; round++) bestCi = Math.min(bestCi, time(() => bootstrapSummary(scored, DEFAULT_BOOTSTRAP))[1]);
console.log(
  `summary_ci.json (${DEFAULT_BOOTSTRAP.replicates} replicates over ${VIDEOS} videos): best of 3 ${bestCi.toFixed(1)} ms; ` +
    `ratio to the JSON.parse baseline ${(bestCi / best.base).toFixed(1)}×`,
);
