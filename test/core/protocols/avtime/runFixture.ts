// A hand-made AVTime run output tree (SPEC-AVTIME §8) for the progress and report readers: two videos,
// six queries (one per direction × axis), judge answers, traces from the protocol's own scoreQuery.
// `upTo` stops the tree after a stage, as a run that is still going (or died) leaves it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scoreKey, scoreQuery, summarize, type AnyJudged, type VideoPrediction } from '../../../../src/core/protocols/avtime/scores';
import { bootstrapSummary } from '../../../../src/core/protocols/avtime/stats/bootstrap';
import type { Query } from '../../../../src/core/protocols/avtime/queries';
import type { Prediction } from '../../../../src/core/protocols/avtime/normalize';

export const RUN_ID = 'run-a';

export const PREDICTIONS: Prediction[] = [
  {
    id: 'rec_0',
    video_id: 'vid_0',
    duration_ms: 10_000,
    warnings: [],
    events: [
      { start_pct: 0, end_pct: 9, start_ms: 0, end_ms: 1000, caption: 'a dog barks <b>loudly</b>' },
      { start_pct: 20, end_pct: 49, start_ms: 2000, end_ms: 5000, caption: 'a man speaks' },
      { start_pct: 40, end_pct: 79, start_ms: 4000, end_ms: 8000, caption: 'music plays' },
    ],
  },
];
export const FAILED_VIDEO = 'vid_1';

export const QUERIES: Query[] = [
  { query_id: 'q_t2e_A', video_id: 'vid_0', axis: 'A', direction: 't2e', time_ms: 4500, reference_captions: ['a man talks'] },
  { query_id: 'q_t2e_V', video_id: 'vid_0', axis: 'V', direction: 't2e', time_ms: 9500, reference_captions: ['the screen fades'] },
  { query_id: 'q_e2t_A', video_id: 'vid_0', axis: 'A', direction: 'e2t', reference_caption: 'a man talks', reference_interval_ms: [2500, 6000] },
  { query_id: 'q_e2t_V', video_id: 'vid_1', axis: 'V', direction: 'e2t', reference_caption: 'a cat', reference_interval_ms: [0, 1000] },
  {
    query_id: 'q_e2e_A',
    video_id: 'vid_0',
    axis: 'A',
    direction: 'e2e',
    relation: 'before',
    events: [
      { caption: 'a dog barks', interval_ms: [0, 900] },
      { caption: 'music', interval_ms: [4000, 8000] },
    ],
  },
  {
    query_id: 'q_e2e_V',
    video_id: 'vid_0',
    axis: 'V',
    direction: 'e2e',
    relation: 'after',
    events: [
      { caption: 'a man', interval_ms: [2000, 5000] },
      { caption: 'music', interval_ms: [4000, 8000] },
    ],
  },
];

/** The judge's answer per query that needs one (q_t2e_V has no active prediction, q_e2t_V a failed video). */
export const JUDGED: Record<string, { request_type: string; response: Record<string, unknown> }> = {
  q_t2e_A: { request_type: 't2e_scalar', response: { score: 3 } },
  q_e2t_A: { request_type: 'semantic_selector', response: { indices: [1, 2] } },
  q_e2e_A: { request_type: 'semantic_pair_selector', response: { indices_a: [0], indices_b: [2] } },
  q_e2e_V: { request_type: 'semantic_pair_selector', response: { indices_a: [1], indices_b: [2] } },
};

export const sha = (q: string, pass: number) => `${q}-p${pass}`.padEnd(64, '0');

function jsonl(file: string, rows: unknown[], tornTail = ''): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, rows.map((r) => JSON.stringify(r) + '\n').join('') + tornTail);
}
function json(file: string, v: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(v, null, 1) + '\n');
}

export type Upto = 'started' | 'infer-half' | 'infer' | 'normalize' | 'judge-pass1' | 'judge' | 'score';
const ORDER: Upto[] = ['started', 'infer-half', 'infer', 'normalize', 'judge-pass1', 'judge', 'score'];

/**
 * Writes the run under `<outputs>/<RUN_ID>/` with a bench root beside it (3 target inputs in 2 shards of 2 and 1),
 * returns its output root. `judgeFailsAfterRetry`: q_e2e_V fails both passes and the judge report is incomplete.
 */
export function writeRun(outputs: string, upTo: Upto, o: { judgeFailsAfterRetry?: boolean } = {}): string {
  const at = (s: Upto) => ORDER.indexOf(upTo) >= ORDER.indexOf(s);
  const root = path.join(outputs, RUN_ID);
  const bench = path.join(outputs, '..', 'bench');
  jsonl(
    path.join(bench, 'target_inputs.jsonl'),
    ['rec_0', 'rec_1', 'rec_2'].map((id) => ({ id })),
  );
  json(path.join(root, '.fpsweep', 'avtime-run.json'), {
    run_id: RUN_ID,
    started_at: '2026-12-03T09:00:00.000Z',
    canonical: true,
    options: { benchRoot: bench, targetGpus: [[0], [1]] },
  });
  const raw = (id: string, video_id: string) => ({
    id,
    video_id,
    response: 'From 00 to 09, x',
    finish_reason: 'stop',
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    latency_s: 0.1,
    endpoint: 'http://127.0.0.1:8011',
    ts: 't',
  });
  if (at('infer-half')) {
    // shard0 has one whole line and a torn one; shard1 nothing yet.
    jsonl(path.join(root, 'inference', 'shard0', 'raw_predictions.jsonl'), [raw('rec_0', 'vid_0')], at('infer') ? '' : '{"id":"rec_1","vid');
  }
  if (at('infer')) {
    jsonl(path.join(root, 'inference', 'shard0', 'raw_predictions.jsonl'), [raw('rec_0', 'vid_0'), raw('rec_1', 'vid_1')]);
    jsonl(path.join(root, 'inference', 'shard1', 'raw_predictions.jsonl'), [raw('rec_2', 'vid_2')]);
    json(path.join(root, 'inference', 'shard0', 'summary.json'), { expected: 2, written: 2, failed: 0, errors: [] });
    json(path.join(root, 'inference', 'shard1', 'summary.json'), { expected: 1, written: 1, failed: 0, errors: [] });
  }
  if (at('normalize')) {
    jsonl(path.join(root, 'predictions.jsonl'), [
      ...PREDICTIONS,
      { id: 'rec_2', video_id: 'vid_2', duration_ms: 5000, events: [{ start_pct: 0, end_pct: 9, start_ms: 0, end_ms: 500, caption: 'x' }], warnings: [] },
    ]);
    jsonl(path.join(root, 'prediction_failures.jsonl'), [{ id: 'rec_1', video_id: FAILED_VIDEO, reason: 'no_event_lines', warnings: [] }]);
    json(path.join(root, 'prediction_report.json'), { protocol: 'longvale_train_dvc_v1' });
  }
  const ident = (q: string, pass: number) => {
    const query = QUERIES.find((x) => x.query_id === q)!;
    return {
      query_id: q,
      axis: query.axis,
      branch: query.direction === 'e2e' ? 'pair' : 'main',
      video_id: query.video_id,
      request_type: JUDGED[q].request_type,
      pass,
      request_sha256: sha(q, pass),
    };
  };
  const resp = (q: string, pass: number) => ({
    ...ident(q, pass),
    model_id: 'judge-m',
    prompt_version: 'v1',
    prompt_sha256: 'p'.repeat(64),
    schema_version: 'v1',
    schema_sha256: 's'.repeat(64),
    response: JUDGED[q].response,
    raw: JSON.stringify(JUDGED[q].response),
    ts: '2026-12-03T09:10:00.000Z',
  });
  const fail = (q: string, pass: number) => ({
    ...ident(q, pass),
    model_id: 'judge-m',
    reason: 'invalid_json',
    detail: 'Unexpected token',
    raw: '{nope',
    ts: 't',
  });
  if (at('judge-pass1')) {
    // Pass 1: four asked, q_e2e_V failed; q_e2e_A not answered yet unless the pass ended.
    const answered = at('judge') ? ['q_t2e_A', 'q_e2t_A', 'q_e2e_A'] : ['q_t2e_A', 'q_e2t_A'];
    const reqs = Object.keys(JUDGED).map((q) => ({ ...ident(q, 1), body: {} }));
    const resps = answered.map((q) => resp(q, 1));
    const fails = at('judge') ? [fail('q_e2e_V', 1)] : [];
    if (at('judge')) {
      reqs.push({ ...ident('q_e2e_V', 2), body: {} });
      if (o.judgeFailsAfterRetry) fails.push(fail('q_e2e_V', 2));
      else resps.push(resp('q_e2e_V', 2));
      json(path.join(root, 'semantic_report.json'), {
        complete: !o.judgeFailsAfterRetry,
        passes: [
          { pass: 1, max_tokens: 512 },
          { pass: 2, max_tokens: 4096 },
        ],
      });
    }
    jsonl(path.join(root, 'semantic_requests.jsonl'), reqs);
    jsonl(path.join(root, 'semantic_responses.jsonl'), resps);
    jsonl(path.join(root, 'semantic_failures.jsonl'), fails);
  }
  if (at('score')) {
    const byVideo = new Map<string, VideoPrediction>(PREDICTIONS.map((p) => [p.video_id, { kind: 'ok', prediction: p }]));
    byVideo.set(FAILED_VIDEO, { kind: 'failure', failure: { id: 'rec_1', video_id: FAILED_VIDEO, reason: 'no_event_lines', warnings: [] } });
    const traces = QUERIES.map((q) => {
      const j = JUDGED[q.query_id];
      const pass = q.query_id === 'q_e2e_V' ? 2 : 1;
      return scoreQuery(q, byVideo.get(q.video_id)!, j ? ({ response_id: sha(q.query_id, pass), value: j.response } as unknown as AnyJudged) : null);
    });
    for (const d of ['t2e', 'e2t', 'e2e'])
      jsonl(
        path.join(root, 'eval', RUN_ID, `${d}_trace.jsonl`),
        traces.filter((t) => t.direction === d),
      );
    json(path.join(root, 'eval', RUN_ID, 'summary.json'), summarize(traces, 1));
    const scored = traces.map((t) => ({ video_id: t.video_id, key: scoreKey(t), score: t.score }));
    json(path.join(root, 'eval', RUN_ID, 'summary_ci.json'), bootstrapSummary(scored, { seed: 7, replicates: 500, level: 0.95 }));
    json(path.join(root, 'eval', RUN_ID, 'run_config.json'), {
      run_id: RUN_ID,
      protocol: 'longvale_train_dvc_v1',
      canonical: true,
      started_at: '2026-12-03T09:00:00.000Z',
      finished_at: '2026-12-03T09:20:00.000Z',
      commit: 'abc123',
      versions: { node: 'v20', fpsweep: '0.1.0', vllm_target: '0.11.0', vllm_judge: '0.11.0' },
      models: {
        target: { model: 'Qwen/Omni', model_id: 'Omni', revision: 'r1', served_model: 'Omni' },
        judge: { model: 'Qwen/Qwen3.6-27B', model_id: 'judge-m', revision: null, served_model: 'j' },
      },
      prompts: { target: { sha256: 't'.repeat(64) } },
      decoding: { target: { temperature: 0, max_tokens: 8192, mm_processor_kwargs: { use_audio_in_video: true } } },
      topology: { target: { shards: 2, gpu_groups: [[0], [1]], tensor_parallel_size: 1 }, judge: { gpu_groups: [[0]], tensor_parallel_size: 1 } },
      non_default_options: { targetGpus: [[0], [1]] },
    });
  }
  return root;
}
