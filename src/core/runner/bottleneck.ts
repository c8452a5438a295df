// What bounds one server's throughput over a window, from vLLM's /metrics (engineMetrics.ts says what each of
// its timings covers) and the client's own timings. A pure function: the status file and the pilot report call it.
// The rule is where requests pile up: a queue forms in front of the slowest stage.
//  - GPU-bound: requests wait in vLLM's scheduler queue (request_queue_time), or the engine always has a request
//    running (num_requests_running > 0 in nearly every scrape). A request running stands for a busy GPU because
//    this workload's prefills (thousands of tokens each) fill its compute; for short, decode-heavy requests it would not.
//  - bound by our inputs ('frames' kind: the run's own preparation, FP's frames): the server had a free slot while
//    our inputs were still being prepared (then nothing at the server is full, whatever its latency).
//  - front-end-bound: the engine has room, our slots stay taken, and most of what we have in flight sits before the
//    engine core (our in flight minus what the engine holds), in vLLM's API process: media loading, hashing, the HF
//    processor on its one event-loop thread; or that thread is loaded (vLLM's histograms say how much).
//  - bound by the client: neither; the server got less than it could take (our in-flight cap was full, or the
//    work ran out).
// vLLM's own knobs are named here; the run type's (its flags, what it prepares) come in its BottleneckWords.
import { z } from 'zod';
import type { EngineMetrics } from '../serving/engineMetrics';

export const BOTTLENECK_KINDS = ['gpu', 'front-end', 'frames', 'client', 'unknown'] as const;
export type BottleneckKind = (typeof BOTTLENECK_KINDS)[number];

/** Fewer answered requests than this in the window: no verdict (startup, a tiny pilot). */
export const MIN_REQUESTS = 5;
/** Engine saturated: on average this many requests waiting in vLLM's scheduler queue, or this share of scrapes with one running. */
export const ENGINE_QUEUE_SATURATED = 0.5;
export const GPU_BUSY_SATURATED = 0.9;
/** Front end: this share of a request's time at the server spent before the engine core. */
export const FRONT_END_SHARE = 0.5;
/** The API process's event-loop thread counts as loaded from this share of the wall in preprocessing. */
export const THREAD_LOADED = 0.7;
/** Ours: a server waited on our inputs (or had its slots full) this share of the window. */
export const WAIT_SHARE = 0.25;

/** A run type's words in the verdicts: what it prepares before a request can go, and its flags. */
export interface BottleneckWords {
  /** Plural noun: 'frames'. */
  inputs: string;
  /** Their preparation: 'frame preparation'. */
  preparation: string;
  /** What to turn when the servers wait on the inputs. */
  prepareKnob: string;
  /** The run's flag for requests in flight per server. */
  inFlightFlag: string;
  /** The run's flags for vLLM's --gpu-memory-utilization and --max-num-seqs. */
  gpuUtilFlag: string;
  maxSeqsFlag: string;
}

/** The words of a run type that names vLLM's flags as they are. */
export const VLLM_WORDS: BottleneckWords = {
  inputs: 'inputs',
  preparation: 'input preparation',
  prepareKnob: 'more CPU for preparing the inputs, if cores are free',
  inFlightFlag: 'the in-flight cap per server',
  gpuUtilFlag: '--gpu-memory-utilization',
  maxSeqsFlag: '--max-num-seqs',
};

export interface ClientWindow {
  /** Answered requests this server sent back in the window, and the sum of their latency as the client saw it. */
  requests: number;
  latencyS: number;
  /** Seconds with work ready for this server but its in-flight cap full. */
  slotWaitS: number;
  /** Seconds this server had a free slot while our inputs were still being prepared (nothing else to send; the name is the status file's). */
  framesWaitS: number;
  /** ∫ requests in flight dt (seconds × requests). */
  inFlightS: number;
  /** The in-flight cap (WORKERS). */
  capacity: number;
}

export interface ServerWindow {
  wallS: number;
  /** vLLM's growth over the window (metricsDelta); null when /metrics never answered. */
  engine: EngineMetrics | null;
  /** Scrapes of the gauges in the window: how many, how many had a request running, and the gauges' sums. */
  samples: { total: number; busy: number; runningSum: number; waitingSum: number };
  client: ClientWindow;
  /** --max-num-seqs of the server, when known. */
  maxNumSeqs: number | null;
}

/** A server's verdict, as the status file and the report carry it. */
export const bottleneckSchema = z.object({
  kind: z.enum(BOTTLENECK_KINDS),
  /** What bounds the server, on what evidence (one line). */
  reason: z.string(),
  /** The knob to turn (one line). */
  knob: z.string(),
  /** Share of scrapes with a request running (null: no scrape). */
  gpuBusy: z.number().nullable(),
  /** Mean requests waiting in vLLM's scheduler queue (null: unknown). */
  engineQueue: z.number().nullable(),
  /** Share of a request's time at the server spent before the engine core (null: unknown). */
  frontEndShare: z.number().nullable(),
  framesWaitShare: z.number(),
  slotWaitShare: z.number(),
  meanInFlight: z.number(),
  wallS: z.number(),
  requests: z.number().int(),
  /** Σ client latency of those requests (request-seconds). */
  latencyS: z.number().default(0),
  /** Prompt tokens vLLM prefilled in the window (vllm:prompt_tokens); null without /metrics. */
  promptTokens: z.number().nullable().default(null),
});
export type Bottleneck = z.infer<typeof bottleneckSchema>;

const pct = (x: number) => `${Math.round(100 * x)}%`;
const f1 = (x: number) => x.toFixed(1);

/**
 * The API process's event-loop thread's load: process_inputs (inside e2e, before the engine core's queue) runs
 * synchronously on that thread, so its intervals do not overlap and their sum over the wall is the thread's load.
 * Null without vLLM's request histograms.
 */
function threadLoadOf(w: ServerWindow): number | null {
  const e = w.engine;
  if (!e || !e.hasRequestTimings || e.e2e.count === 0 || !(w.wallS > 0)) return null;
  return Math.max(0, e.e2e.sum - e.queue.sum - e.inference.sum) / w.wallS;
}

function frontEndKnob(w: ServerWindow, words: BottleneckWords): string {
  const e = w.engine;
  const threadLoad = threadLoadOf(w);
  if (e && threadLoad !== null && w.client.requests > 0) {
    // Inside e2e before the engine core: process_inputs (hashing, HF processor); outside: HTTP and media loading.
    const pre = Math.max(0, e.e2e.sum - e.queue.sum - e.inference.sum) / e.e2e.count;
    const outside = Math.max(0, w.client.latencyS / w.client.requests - e.e2e.sum / e.e2e.count);
    // A loaded thread also makes requests wait before arrival (outside): the outside time points at media loading
    // only while the thread has room.
    if (threadLoad < THREAD_LOADED && outside > pre) {
      return `media loading: raise VLLM_MEDIA_LOADING_THREAD_COUNT (default 8) and send file:// ${words.inputs}; ${f1(outside)} s/request before vLLM's arrival, ${f1(pre)} s in its preprocessing`;
    }
    return (
      `the HF processor on one thread: raise --mm-processor-cache-gb so repeated ${words.inputs} hit its cache ` +
      `(keep a video's requests on one server); ${f1(pre)} s/request in preprocessing`
    );
  }
  return `raise --mm-processor-cache-gb so repeated ${words.inputs} hit the processor cache, and VLLM_MEDIA_LOADING_THREAD_COUNT; send file:// ${words.inputs}`;
}

function gpuKnob(w: ServerWindow, words: BottleneckWords): string {
  const e = w.engine;
  if (e && (e.kvCacheUsage >= 0.95 || e.preemptions > 0)) {
    return `the KV cache is full (${pct(e.kvCacheUsage)}, ${e.preemptions} preemptions): lower in flight (${words.inFlightFlag}) or raise ${words.gpuUtilFlag}`;
  }
  const meanRunning = w.samples.total ? w.samples.runningSum / w.samples.total : null;
  if (w.maxNumSeqs && meanRunning !== null && meanRunning >= 0.95 * w.maxNumSeqs) {
    const kv = e ? pct(e.kvCacheUsage) : 'unknown';
    return `running at --max-num-seqs (${f1(meanRunning)} of ${w.maxNumSeqs}): raise ${words.maxSeqsFlag} if the KV cache has room (${kv})`;
  }
  return 'none on our side: the GPU is the limit, as it should be (more GPUs or hosts, --shard, shorten it)';
}

export function classifyBottleneck(w: ServerWindow, words: BottleneckWords = VLLM_WORDS): Bottleneck {
  const wall = w.wallS;
  const c = w.client;
  const e = w.engine;
  const s = w.samples;
  const gpuBusy = s.total > 0 ? s.busy / s.total : null;
  const timings = e !== null && e.hasRequestTimings && e.e2e.count > 0;
  const engineQueue = wall > 0 ? (timings ? e!.queue.sum / wall : s.total > 0 ? s.waitingSum / s.total : null) : null;
  const meanInFlight = wall > 0 ? c.inFlightS / wall : 0;
  // Requests inside the engine core on average (Little's law on its histograms, else the sampled gauges).
  const inEngine = wall > 0 ? (timings ? (e!.queue.sum + e!.inference.sum) / wall : s.total > 0 ? (s.runningSum + s.waitingSum) / s.total : null) : null;
  const frontEndShare = inEngine !== null && meanInFlight > 0 ? Math.min(1, Math.max(0, 1 - inEngine / meanInFlight)) : null;
  const framesWaitShare = wall > 0 ? Math.min(1, c.framesWaitS / wall) : 0;
  const slotWaitShare = wall > 0 ? Math.min(1, c.slotWaitS / wall) : 0;
  const base = {
    ...{ gpuBusy, engineQueue, frontEndShare, framesWaitShare, slotWaitShare, meanInFlight },
    ...{ wallS: wall, requests: c.requests, latencyS: c.latencyS, promptTokens: e ? e.promptTokens : null },
  };

  if (!(wall > 0) || c.requests < MIN_REQUESTS) {
    return { ...base, kind: 'unknown', reason: `too little to judge (${c.requests} answered requests in ${f1(Math.max(0, wall))} s)`, knob: 'none yet' };
  }
  if ((engineQueue !== null && engineQueue >= ENGINE_QUEUE_SATURATED) || (gpuBusy !== null && gpuBusy >= GPU_BUSY_SATURATED)) {
    const why = [
      gpuBusy !== null ? `a request running in ${pct(gpuBusy)} of scrapes` : null,
      engineQueue !== null ? `${f1(engineQueue)} waiting in vLLM's queue` : null,
    ];
    return { ...base, kind: 'gpu', reason: `GPU-bound: ${why.filter(Boolean).join(', ')}`, knob: gpuKnob(w, words) };
  }
  if (framesWaitShare >= WAIT_SHARE) {
    return {
      ...base,
      kind: 'frames',
      reason: `${bottleneckLabel('frames', words)}: a free slot waited on ${words.preparation} ${pct(framesWaitShare)} of the time`,
      knob: words.prepareKnob,
    };
  }
  // The front end bounds the server only when it is full: our slots stay taken (or its one thread is loaded) while
  // most of what we have in flight sits before the engine. A slow but idle front end is only latency.
  const threadLoad = threadLoadOf(w);
  const frontFull = (frontEndShare !== null && frontEndShare >= FRONT_END_SHARE && slotWaitShare >= WAIT_SHARE) || (threadLoad ?? 0) >= THREAD_LOADED;
  if (frontFull) {
    return {
      ...base,
      kind: 'front-end',
      reason:
        `front-end-bound: ${frontEndShare === null ? 'an unknown share' : pct(frontEndShare)} of a request's time at the server ` +
        `is spent in vLLM's API process before its engine ` +
        `(engine busy ${gpuBusy === null ? 'unknown' : pct(gpuBusy)}${threadLoad === null ? '' : `, its thread ${pct(threadLoad)} loaded`})`,
      knob: frontEndKnob(w, words),
    };
  }
  const full = slotWaitShare >= WAIT_SHARE;
  return {
    ...base,
    kind: 'client',
    reason: full
      ? `bound by the client: our in-flight cap (${c.capacity}) was full ${pct(slotWaitShare)} of the time while the server had room`
      : `bound by the client: the server got ${f1(meanInFlight)} requests in flight on average (cap ${c.capacity}) and had room; the work ran short`,
    knob: full
      ? `raise in flight per server (${words.inFlightFlag}, now ${c.capacity})`
      : `a larger pilot or plan keeps it fed; if it persists, raise ${words.inFlightFlag}`,
  };
}

/** The run's verdict: the kind most servers have (ties: gpu, front-end, frames, client), unknown when none is known. */
export function runBottleneck(verdicts: readonly Pick<Bottleneck, 'kind'>[]): BottleneckKind {
  const known = verdicts.filter((v) => v.kind !== 'unknown');
  if (!known.length) return 'unknown';
  const n = (k: BottleneckKind) => known.filter((v) => v.kind === k).length;
  return (['gpu', 'front-end', 'frames', 'client'] as const).reduce((best, k) => (n(k) > n(best) ? k : best), 'gpu' as BottleneckKind);
}

/** A kind in words ('frames' in the run type's: 'bound by our frames'). */
export function bottleneckLabel(kind: BottleneckKind, words: BottleneckWords = VLLM_WORDS): string {
  const labels: Record<BottleneckKind, string> = {
    gpu: 'GPU-bound',
    'front-end': "front-end-bound (vLLM's API process)",
    frames: `bound by our ${words.inputs}`,
    client: 'bound by the client',
    unknown: 'unknown',
  };
  return labels[kind];
}

/** The run's line: its kind, how many servers say so, and the first such server's knob. */
export function runBottleneckLine(verdicts: readonly Bottleneck[], words: BottleneckWords = VLLM_WORDS): string {
  const kind = runBottleneck(verdicts);
  if (kind === 'unknown') return 'bottleneck: unknown (too little measured yet)';
  const same = verdicts.filter((v) => v.kind === kind);
  return `bottleneck: ${bottleneckLabel(kind, words)} on ${same.length} of ${verdicts.length} server(s); turn: ${same[0].knob}`;
}
