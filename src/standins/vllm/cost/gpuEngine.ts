/**
 * vLLM 0.11's V1 engine core as a pure, step-by-step model in simulated seconds: the scheduler's token budget
 * (chunked prefill), `--max-num-seqs`, the prefix cache's hits (given at admission), and each step's GPU time
 * from the calibration.
 *
 * Exports: GpuEngineModel (add, step, running, waiting, busyS), EngineRequest, StepResult, EngineModelConfig,
 * DEFAULT_MAX_NUM_BATCHED_TOKENS, DEFAULT_MAX_NUM_SEQS.
 *
 * Use: `add()` requests as they reach the engine core; while `hasWork`, call `step()` and advance the clock by
 * its `durationS`; the requests it lists as finished completed at the step's end.
 *
 * Rules followed (vLLM 0.11):
 *  - vllm/v1/core/sched/scheduler.py `schedule()`: one token budget per step (max_num_batched_tokens); RUNNING
 *    requests first, in order, each taking min(tokens it still needs, budget left) (a decoding request needs 1);
 *    then WAITING requests in arrival order while running < max_num_seqs and budget is left. A long prompt is
 *    therefore prefilled in chunks over several steps (V1 always chunks).
 *  - vllm/v1/core/kv_cache_manager.py `get_computed_blocks`: the prefix-cache hit is looked up when a waiting
 *    request is scheduled (here `lookupCachedTokens` at admission); those tokens are not computed.
 *  - vllm/engine/arg_utils.py `_set_default_args`: for the OpenAI server on a GPU of ≥ 70 GiB (H100/H200/B200),
 *    max_num_batched_tokens 8192 and max_num_seqs 1024 unless given.
 *  - Each step costs the calibration's per-pass floor (STEP_FLOOR_H200_S) plus the work of what it schedules; a
 *    request alone in one step costs exactly calibration.prefillSeconds.
 *  - Every step samples one token for each request whose prompt is complete (the prefill's last chunk yields the
 *    first output token); a request finishes after `outputTokens` tokens.
 *  Not modelled: KV-cache capacity and preemption, the encoder budget's cut of chunks at image boundaries.
 */
import { PREFILL_FIT, STEP_FLOOR_H200_S, prefillWorkSeconds, visionSeconds, type PrefillFit } from './calibration';

export const DEFAULT_MAX_NUM_BATCHED_TOKENS = 8192;
export const DEFAULT_MAX_NUM_SEQS = 1024;

export interface EngineModelConfig {
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
  /** GPU seconds per H200-transformers second (calibration.ts: 1, or B200_VLLM_SCALE). */
  gpuScale: number;
  fit?: PrefillFit;
}

export interface EngineRequest<Id = unknown> {
  id: Id;
  promptTokens: number;
  /** Images in the prompt (their vision encoder runs unless the prefix cache serves their tokens). */
  frames: number;
  /** Output tokens the request will produce (≥ 1). */
  outputTokens: number;
  /** Prompt tokens the prefix cache serves, asked when the request is admitted; default 0. */
  lookupCachedTokens?: () => number;
  /** Images whose tokens lie in the cached part (default: frames in proportion to the cached tokens). */
  cachedFrames?: (cachedTokens: number) => number;
}

interface Live<Id> {
  req: EngineRequest<Id>;
  cached: number;
  /** Prompt tokens computed so far, cached ones included. */
  computed: number;
  newFrames: number;
  generated: number;
}

export interface StepResult<Id = unknown> {
  durationS: number;
  /** Tokens scheduled this step (prefill chunks + one per decoding request). */
  tokens: number;
  /** Requests admitted from the waiting queue this step, with their prefix-cache hit in tokens. */
  admitted: Array<{ id: Id; cachedTokens: number }>;
  /** Requests whose prompt finished prefilling this step (their first token comes with it). */
  prefilled: Id[];
  finished: Id[];
}

export class GpuEngineModel<Id = unknown> {
  private readonly runningList: Array<Live<Id>> = [];
  private readonly waitingList: Array<EngineRequest<Id>> = [];
  private readonly fit: PrefillFit;
  /** Simulated seconds the GPU spent on steps. */
  busyS = 0;

  constructor(readonly config: EngineModelConfig) {
    if (config.maxNumSeqs < 1 || config.maxNumBatchedTokens < 1 || !(config.gpuScale > 0)) throw new RangeError('engine model: bad config');
    this.fit = config.fit ?? PREFILL_FIT;
  }

  get running(): number {
    return this.runningList.length;
  }

  get waiting(): number {
    return this.waitingList.length;
  }

  get hasWork(): boolean {
    return this.runningList.length + this.waitingList.length > 0;
  }

  add(req: EngineRequest<Id>): void {
    if (req.outputTokens < 1 || req.promptTokens < 1) throw new RangeError('engine model: a request needs ≥ 1 prompt and output token');
    this.waitingList.push(req);
  }

  /** One scheduler step; null when there is nothing to run. */
  step(): StepResult<Id> | null {
    if (!this.hasWork) return null;
    let budget = this.config.maxNumBatchedTokens;
    let workS = 0;
    const scheduled: Array<[Live<Id>, number]> = [];
    const admitted: StepResult<Id>['admitted'] = [];
    const take = (live: Live<Id>): void => {
      const need = live.computed < live.req.promptTokens ? live.req.promptTokens - live.computed : 1;
      const n = Math.min(need, budget);
      if (n <= 0) return;
      budget -= n;
      scheduled.push([live, n]);
    };
    for (const live of this.runningList) {
      if (budget <= 0) break;
      take(live);
    }
    while (this.waitingList.length > 0 && this.runningList.length < this.config.maxNumSeqs && budget > 0) {
      const req = this.waitingList.shift() as EngineRequest<Id>;
      // vLLM recomputes at least the last prompt token, so a full hit still leaves one to compute.
      const cached = Math.min(req.lookupCachedTokens?.() ?? 0, req.promptTokens - 1);
      const cachedFrames = req.cachedFrames ? req.cachedFrames(cached) : Math.floor((req.frames * cached) / req.promptTokens);
      const live: Live<Id> = { req, cached, computed: cached, newFrames: Math.max(0, req.frames - cachedFrames), generated: 0 };
      this.runningList.push(live);
      admitted.push({ id: req.id, cachedTokens: cached });
      take(live);
    }
    const prefilled: Id[] = [];
    const finished: Id[] = [];
    const done = new Set<Live<Id>>();
    let tokens = 0;
    for (const [live, n] of scheduled) {
      tokens += n;
      const prefill = live.computed < live.req.promptTokens;
      const toCompute = live.req.promptTokens - live.cached;
      workS += prefillWorkSeconds({ newTokens: n, contextTokens: live.computed + (prefill ? 0 : live.generated), newFrames: 0 }, this.fit);
      // The request's vision work (calibration's per-frame terms) is spread over its chunks by their tokens.
      if (prefill) workS += (visionSeconds(live.newFrames, this.fit) * n) / toCompute;
      // The per-request part of the calibration's constant, once, with the request's first chunk.
      if (prefill && live.computed === live.cached) workS += Math.max(0, this.fit.c0 - STEP_FLOOR_H200_S);
      live.computed += prefill ? n : 0;
      if (prefill && live.computed < live.req.promptTokens) continue; // a chunk that does not end the prompt samples nothing
      if (prefill) prefilled.push(live.req.id);
      live.generated++;
      if (live.generated < live.req.outputTokens) continue;
      finished.push(live.req.id);
      done.add(live);
    }
    if (done.size > 0) this.runningList.splice(0, this.runningList.length, ...this.runningList.filter((l) => !done.has(l)));
    const durationS = this.config.gpuScale * (Math.min(STEP_FLOOR_H200_S, this.fit.c0) + workS);
    this.busyS += durationS;
    return { durationS, tokens, admitted, prefilled, finished };
  }
}
