// The GPU-bound lower bound of a plan on the modelled host: every group's images prefilled once (its first
// request), every other request of the group served from the prefix cache (only its question computed), each
// answer's tokens decoded, the steps' fixed cost paid once per full token budget, and the work spread evenly
// over the GPUs. No client can beat it in the model; the front end, our frames and the order are all free here.
import type { SimPlan } from './workload';
import { PREFILL_FIT, prefillWorkSeconds } from '../../src/standins/vllm/cost/calibration';
import { FastLru } from './fastLru';
import { processInputsFast } from './frontEndFast';
import type { ImageBook } from './server';

export function gpuLowerBoundS(plan: SimPlan, o: { gpus: number; gpuScale: number; maxNumBatchedTokens: number; outputTokens: number }): number {
  let work = 0;
  let tokens = 0;
  for (const v of plan.videos) {
    const seen = new Set<object>();
    for (const r of v.requests) {
      const g = r.group;
      const first = !seen.has(g);
      seen.add(g);
      const newTokens = first ? r.promptTokens : r.textTokens;
      const context = first ? 0 : g.imageTokens;
      work += prefillWorkSeconds({ newTokens, contextTokens: context, newFrames: first ? g.images.length : 0 });
      for (let k = 1; k < o.outputTokens; k++) work += prefillWorkSeconds({ newTokens: 1, contextTokens: r.promptTokens + k, newFrames: 0 });
      tokens += newTokens + o.outputTokens - 1;
    }
  }
  const steps = tokens / o.maxNumBatchedTokens;
  return (o.gpuScale * (work + PREFILL_FIT.c0 * steps)) / o.gpus;
}

/**
 * The front end's floor on the same host: every send pays its request, per-item and hashing time on its server's
 * API thread, and each distinct image is processed once — every repeat a hit (the cost model's frontEndFloorS,
 * computed per video since no image is shared between videos), spread evenly over the servers.
 */
export function frontEndFloorS(plan: SimPlan, book: ImageBook, servers: number, processorThreads = 1): number {
  let s = 0;
  for (const v of plan.videos) {
    const cache = new FastLru(Infinity);
    for (const r of v.requests) s += processInputsFast(book.of(v, r.group).images, cache, processorThreads).threadS;
    for (const r of v.requests) book.forget(r.group);
  }
  return s / servers;
}
