// The work plan (what a run or a dry run has to do), as the runner consumes it.
//
//   const pkg  = await loadPackage(root, { benchmarks });           // items, manifest, problems
//   const csv  = await readResultsCsv(layout.resultsCsv);            // done-set + stored v_32 answers
//   const plan = await buildWorkPlan(pkg, csv, { conditions });     // every (benchmark, item, condition)
//
// plan.units lists every unit that is not done, in package order (benchmark → item → condition):
//   NA        write an NA row now (no request)
//   reuse     write a reuse row copying pred/correct from `reuse.stored` (a v_32 row already in the
//             CSV) or, when `reuse.from` is a todo unit of this plan, right after that unit's row is
//             written; if that unit fails, the reuse unit fails with it
//   todo      send one request; `hash` names the video; frame choices come from planFrames, which the
//             runner gets per video with loadVideoFramePlans(layout, plan.videos[i]) (FramePlans are
//             not kept in the plan: for a full package they would take hundreds of MB)
//   no_video, bad_meta   a failure line (SPEC §4), with `message`
// plan.videos groups the todo units by video hash (one server per video); a v_32 unit that a
// reuse unit waits for has it in `dependents`. `counts` feeds the dry run and the progress view.
import type { Item } from '../package/schemas';
import type { PackageLayout } from '../package/layout';
import type { StoredAnswer } from '../package/resultsCsv';

export type UnitStatus = 'done' | 'NA' | 'reuse' | 'todo' | 'no_video' | 'bad_meta';
export const UNIT_STATUSES: readonly UnitStatus[] = ['done', 'NA', 'reuse', 'todo', 'no_video', 'bad_meta'];

export interface WorkUnit {
  benchmark: string;
  item: Item;
  condition: string;
  status: Exclude<UnitStatus, 'done'>;
  /** The video's hash; null only when the manifest has no row for the item. */
  hash: string | null;
  /** Why the unit fails (no_video, bad_meta), for failures.jsonl. */
  message?: string;
  /** todo: whether a server with 65,536 tokens of context is predicted to refuse it (SPEC §2.5). Exact. */
  contextRefusal?: boolean;
  /**
   * todo: frames sent and the prompt tokens a Qwen3-VL server would count for them (a cost for
   * scheduling and ETA). Exact (`exact: true`) for v_blind, frame-count conditions and units near
   * the context limit (so on every predicted refusal); for other fps units a close upper bound
   * (the fps grid is selected at run time, by planFrames).
   */
  nFrames?: number;
  predictedPromptTokens?: number;
  exact?: boolean;
  /** todo: v_32 units the plan added because a reuse unit needs them and CONDS left v_32 out. */
  addedForReuse?: boolean;
  /** todo: reuse units waiting for this unit's row. */
  dependents?: WorkUnit[];
  /** reuse: the condition copied and where its answer is. */
  reuse?: { fromCondition: string; stored: StoredAnswer | null; from: WorkUnit | null };
}

export interface VideoWork {
  hash: string;
  /** The todo units of this video, in package order. */
  units: WorkUnit[];
}

export interface UnitCounts {
  todo: number;
  NA: number;
  reuse: number;
  done: number;
  no_video: number;
  bad_meta: number;
  /** todo units predicted to be refused by a 65,536-token server (still todo). */
  context_refusals: number;
}

export function emptyCounts(): UnitCounts {
  return { todo: 0, NA: 0, reuse: 0, done: 0, no_video: 0, bad_meta: 0, context_refusals: 0 };
}

export interface WorkPlan {
  layout: PackageLayout;
  benchmarks: string[];
  /** The conditions asked for, plus v_32 when the plan had to add it for reuse rows. */
  conditions: string[];
  units: WorkUnit[];
  videos: VideoWork[];
  /** benchmark → condition → counts (items). */
  counts: Map<string, Map<string, UnitCounts>>;
}
