// Stage 5, scores (SPEC-AVTIME §7): every query through the protocol's scoreQuery with the judge answer that
// counts (none for a prediction failure or a t2e query with no active prediction), the three trace files and
// summary.json under eval/<RUN_ID>/, then summary_ci.json beside it (bootstrap intervals over videos, seeded).
// A missing judge answer is fatal (scoreQuery throws): no fallback.
import type { Query } from '../queries';
import type { NormalizeOutcome } from '../normalize';
import { scoreKey, scoreQuery, summarize, type QueryTrace, type Summary, type VideoPrediction, type AnyJudged } from '../scores';
import { bootstrapSummary, DEFAULT_BOOTSTRAP, type BootstrapOptions, type SummaryCi } from '../stats/bootstrap';
import type { AvtimeRunLayout } from './layout';
import type { JudgeResponseLine } from './judgeStage';
import { jsonlText, writeFileAtomic } from './files';

export function scoreAll(
  queries: readonly Query[],
  outcomes: readonly NormalizeOutcome[],
  counted: ReadonlyMap<string, JudgeResponseLine>,
  bootstrap: BootstrapOptions = DEFAULT_BOOTSTRAP,
): { traces: QueryTrace[]; summary: Summary; ci: SummaryCi } {
  const byVideo = new Map<string, VideoPrediction>();
  for (const o of outcomes) byVideo.set(o.kind === 'ok' ? o.prediction.video_id : o.failure.video_id, o);
  const traces = queries.map((q) => {
    const video = byVideo.get(q.video_id);
    if (!video) throw new Error(`query ${q.query_id}: no target input for video ${q.video_id}`);
    const r = counted.get(q.query_id);
    // r.response was checked by parseJudgeResponse when it was counted (judgeStage countedResponses / runJudge).
    const judged = r ? ({ response_id: r.request_sha256, value: r.response } as unknown as AnyJudged) : null;
    return scoreQuery(q, video, judged);
  });
  const failures = outcomes.filter((o) => o.kind === 'failure').length;
  const ci = bootstrapSummary(
    traces.map((t) => ({ video_id: t.video_id, key: scoreKey(t), score: t.score })),
    bootstrap,
  );
  return { traces, summary: summarize(traces, failures), ci };
}

export async function writeScores(layout: AvtimeRunLayout, traces: readonly QueryTrace[], summary: Summary, ci: SummaryCi): Promise<void> {
  for (const d of ['t2e', 'e2t', 'e2e'] as const) await writeFileAtomic(layout.root, layout.trace(d), jsonlText(traces.filter((t) => t.direction === d)));
  await writeFileAtomic(layout.root, layout.summary, JSON.stringify(summary, null, 1) + '\n');
  await writeFileAtomic(layout.root, layout.summaryCi, JSON.stringify(ci, null, 1) + '\n');
}

export function scoreLine(s: Summary): string {
  const f = (x: number) => x.toFixed(4);
  return (
    `scores: T2E-A ${f(s['T2E-A'])} T2E-V ${f(s['T2E-V'])} E2T-A ${f(s['E2T-A'])} E2T-V ${f(s['E2T-V'])} ` +
    `E2E-A ${f(s['E2E-A'])} E2E-V ${f(s['E2E-V'])} over ${s.counts.total_queries} queries ` +
    `(${s.counts.judged} judged, ${s.prediction_failures} prediction failures)`
  );
}
