// The base-condition rows that "already exist" in a sample package, as the origin cluster would
// have left them: one raw record per row (results/p1_raw/<cond>/<bench>__DIAG_V.jsonl) and the
// matching CSV line. Frame choices come from the protocol's planFrames, like any real row.
import { buildPromptText, parseAnswerLetter, parseCondition, planFrames, predictPromptTokens, optionLetter } from '../rules';
import { rawRecordSchema, type RawRecord, type VideoMeta } from '../package/schemas';
import type { SampleItem, SamplePlan } from './plan';
import { SeededRandom } from '../../../seededRandom';

/** When the origin made the rows: fixed, so the package is the same on every run. */
const ORIGIN_START_MS = Date.UTC(2026, 9, 14, 8, 0, 0);
const ORIGIN_PORTS = [8011, 8012, 8013, 8014];

function responseFor(rnd: SeededRandom, item: SampleItem, blind: boolean): string {
  const roll = rnd.next();
  if (roll < 0.05) return 'Unclear from the frames.';
  const answerIndex = item.answer.charCodeAt(0) - 65;
  const pickIndex = rnd.next() < (blind ? 0.35 : 0.65) ? answerIndex : rnd.int(item.options.length);
  const letter = optionLetter(pickIndex);
  const style = rnd.int(3);
  if (style === 0) return letter;
  if (style === 1) return `(${letter})`;
  return `${letter}. ${item.options[pickIndex]}`;
}

/** Raw records of the plan's existing rows, in plan order; `metas` holds every encoded video's meta. */
export function existingRawRecords(plan: SamplePlan, metas: ReadonlyMap<string, VideoMeta>): RawRecord[] {
  const rnd = new SeededRandom(plan.scale * 7919 + 17);
  const byId = new Map(plan.items.map((it) => [`${it.benchmark}\u0000${it.item_id}`, it]));
  return plan.existing.map((row, i) => {
    const item = byId.get(`${row.benchmark}\u0000${row.item_id}`);
    if (!item) throw new Error(`existing row for unknown item ${row.benchmark}/${row.item_id}`);
    const cond = parseCondition(row.condition);
    const meta = item.hash ? (metas.get(item.hash) ?? null) : null;
    if (cond.kind !== 'blind' && !meta) throw new Error(`existing ${row.condition} row for ${item.item_id} needs its video`);
    const frames = planFrames(cond, meta);
    if (frames.status !== 'send') throw new Error(`existing rows are sent rows; ${row.condition} gave ${frames.status}`);
    const dims = frames.width === null || frames.height === null ? [] : frames.indices.map(() => ({ width: frames.width!, height: frames.height! }));
    const response = responseFor(rnd, item, cond.kind === 'blind');
    const pred = parseAnswerLetter(response);
    const latency = cond.kind === 'blind' ? 0.2 + rnd.next() * 0.4 : 0.8 + rnd.next() * 3;
    const record: RawRecord = {
      benchmark: item.benchmark,
      item_id: item.item_id,
      condition: row.condition,
      status: 'ok',
      response,
      pred,
      answer: item.answer,
      correct: pred === item.answer ? 1 : 0,
      usage: {
        prompt_tokens: predictPromptTokens(dims, buildPromptText(item.question, item.options)),
        completion_tokens: 1 + Math.ceil(response.length / 4),
      },
      latency_s: Math.round(latency * 1000) / 1000,
      endpoint: `http://127.0.0.1:${ORIGIN_PORTS[i % ORIGIN_PORTS.length]}`,
      ts: new Date(ORIGIN_START_MS + i * 7000).toISOString(),
      meta: {
        n_frames_used: frames.indices.length,
        frame_indices: frames.indices,
        timestamps: frames.timestamps,
        short_side: frames.shortSide,
        width: frames.width,
        height: frames.height,
        tokens_per_frame: frames.tokensPerFrame,
        capped: frames.capped,
        capped_ctx: frames.cappedCtx,
        n_grid: frames.nGrid,
        n_max: frames.nMax,
        reused_from: null,
      },
    };
    return rawRecordSchema.parse(record);
  });
}

/** existing_by_condition of scope_summary.json: {condition: {benchmark: rows}}. */
export function existingByCondition(plan: SamplePlan): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const r of plan.existing) {
    const byBench = (out[r.condition] ??= {});
    byBench[r.benchmark] = (byBench[r.benchmark] ?? 0) + 1;
  }
  return out;
}
