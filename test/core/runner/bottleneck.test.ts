// The bottleneck verdict over synthetic vLLM 0.11 /metrics pages (names as loggers.py registers them) and client
// timings: where requests pile up names the bound, scaling every time leaves it unchanged, and the knob follows
// the part of the front end that takes the time.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { metricsDelta, parseEngineMetrics } from '../../../src/core/serving/engineMetrics';
import { bottleneckLabel, classifyBottleneck, runBottleneck, VLLM_WORDS, type Bottleneck, type ServerWindow } from '../../../src/core/runner/bottleneck';

interface Page {
  running?: number;
  waiting?: number;
  kv?: number;
  prompt?: number;
  preempt?: number;
  e2e?: [number, number];
  queue?: [number, number];
  inference?: [number, number];
  prefill?: [number, number];
}

/** A /metrics page as vLLM 0.11 writes it (HELP/TYPE lines, labels, buckets and _created lines included). */
function page(p: Page, model = 'Qwen/Qwen3-VL-8B-Instruct'): string {
  const l = `engine="0",model_name="${model}"`;
  const out = [
    '# HELP vllm:num_requests_running Number of requests in model execution batches.',
    '# TYPE vllm:num_requests_running gauge',
    `vllm:num_requests_running{${l}} ${p.running ?? 0}.0`,
    `vllm:num_requests_waiting{${l}} ${p.waiting ?? 0}.0`,
    `vllm:kv_cache_usage_perc{${l}} ${p.kv ?? 0}`,
    `vllm:prompt_tokens_total{${l}} ${p.prompt ?? 0}.0`,
    `vllm:prompt_tokens_created{${l}} 1.7e+09`,
    `vllm:num_preemptions_total{${l}} ${p.preempt ?? 0}.0`,
  ];
  const hist = (name: string, v?: [number, number]) => {
    if (!v) return;
    out.push(`# TYPE ${name} histogram`, `${name}_bucket{${l},le="1.0"} 0.0`, `${name}_bucket{${l},le="+Inf"} ${v[1]}.0`);
    out.push(`${name}_count{${l}} ${v[1]}.0`, `${name}_sum{${l}} ${v[0]}`, `${name}_created{${l}} 1.7e+09`);
  };
  hist('vllm:e2e_request_latency_seconds', p.e2e);
  hist('vllm:request_queue_time_seconds', p.queue);
  hist('vllm:request_inference_time_seconds', p.inference);
  hist('vllm:request_prefill_time_seconds', p.prefill);
  // Another model on the same page (a shared Prometheus registry) must not count.
  out.push(`vllm:request_queue_time_seconds_sum{engine="0",model_name="other"} 99999`);
  return out.join('\n') + '\n';
}

const MODEL = 'Qwen/Qwen3-VL-8B-Instruct';
const windowOf = (before: Page, after: Page) => metricsDelta(parseEngineMetrics(page(before), MODEL), parseEngineMetrics(page(after), MODEL));

function win(over: Partial<Omit<ServerWindow, 'client'>> & { client?: Partial<ServerWindow['client']> }): ServerWindow {
  return {
    wallS: 100,
    engine: null,
    samples: { total: 20, busy: 10, runningSum: 10, waitingSum: 0 },
    maxNumSeqs: 32,
    ...over,
    client: { requests: 100, latencyS: 400, slotWaitS: 0, framesWaitS: 0, inFlightS: 400, capacity: 6, ...over.client },
  };
}

describe('bottleneck: vLLM 0.11 metrics', () => {
  it('reads gauges, counters and histogram sums of one model, and takes the growth between two scrapes', () => {
    const m = parseEngineMetrics(page({ running: 3, waiting: 2, kv: 0.5, prompt: 1000, e2e: [10, 4], queue: [2, 4], inference: [6, 4] }), MODEL);
    assert.deepEqual([m.running, m.waiting, m.kvCacheUsage, m.promptTokens], [3, 2, 0.5, 1000]);
    assert.deepEqual([m.e2e, m.queue, m.inference, m.hasRequestTimings], [{ sum: 10, count: 4 }, { sum: 2, count: 4 }, { sum: 6, count: 4 }, true]);
    const d = windowOf({ prompt: 1000, e2e: [10, 4] }, { prompt: 2500, e2e: [30, 9] });
    assert.deepEqual([d.promptTokens, d.e2e], [1500, { sum: 20, count: 5 }]);
    // A restarted server's counters start again from 0: the growth is what it has now.
    assert.deepEqual(windowOf({ e2e: [30, 9] }, { e2e: [3, 2] }).e2e, { sum: 3, count: 2 });
    assert.equal(parseEngineMetrics(page({ running: 1 }), MODEL).hasRequestTimings, false);
    assert.equal(parseEngineMetrics(page({ running: 1 })).queue.sum, 99999, 'no model filter: every label set counts');
  });
});

describe('bottleneck: the verdict', () => {
  it('GPU-bound when requests wait in vLLM’s scheduler queue, whatever the client saw', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.5, max: 50, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (q, fw, sw) => {
          const engine = windowOf({}, { e2e: [900, 100], queue: [q * 100, 100], inference: [300, 100] });
          const v = classifyBottleneck(win({ engine, client: { framesWaitS: fw * 100, slotWaitS: sw * 100 } }));
          assert.equal(v.kind, 'gpu', v.reason);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('front-end-bound when in-flight requests sit before the engine; the knob follows the slower part', () => {
    // 4 in flight on average, 1 in the engine: 75 % of the time at the server is in the API process.
    const hf = windowOf({}, { e2e: [350, 100], queue: [0, 100], inference: [100, 100] }); // 2.5 s/request in process_inputs
    const v1 = classifyBottleneck(win({ engine: hf, samples: { total: 20, busy: 12, runningSum: 12, waitingSum: 0 } }));
    assert.equal(v1.kind, 'front-end', v1.reason);
    assert.match(v1.knob, /--mm-processor-cache-gb/);
    const media = windowOf({}, { e2e: [120, 100], queue: [0, 100], inference: [100, 100] }); // 2.8 s/request before arrival
    const v2 = classifyBottleneck(win({ engine: media, samples: { total: 20, busy: 12, runningSum: 12, waitingSum: 0 }, client: { slotWaitS: 60 } }));
    assert.equal(v2.kind, 'front-end', v2.reason);
    assert.match(v2.knob, /VLLM_MEDIA_LOADING_THREAD_COUNT/);
    // A loaded event-loop thread (80 % of the wall in preprocessing) makes requests wait before arrival too:
    // that outside time is queueing for the thread, not media loading.
    const loaded = windowOf({}, { e2e: [180, 100], queue: [0, 100], inference: [100, 100] }); // 0.8 s × 100 in 100 s
    const v4 = classifyBottleneck(win({ engine: loaded, samples: { total: 20, busy: 12, runningSum: 12, waitingSum: 0 } }));
    assert.equal(v4.kind, 'front-end', v4.reason);
    assert.match(v4.knob, /--mm-processor-cache-gb/);
    // Without request histograms, the sampled gauges stand in for what the engine holds.
    const v3 = classifyBottleneck(
      win({ engine: windowOf({}, {}), samples: { total: 20, busy: 10, runningSum: 10, waitingSum: 0 }, client: { slotWaitS: 60 } }),
    );
    assert.equal(v3.kind, 'front-end', v3.reason);
    // A slow front end that is not full (our slots free, its thread light) is latency, not the bound.
    const v5 = classifyBottleneck(win({ engine: media, samples: { total: 20, busy: 12, runningSum: 12, waitingSum: 0 } }));
    assert.equal(v5.kind, 'client', v5.reason);
  });

  it('bound by our frames when a free slot waited on frame preparation; by the client when our cap was full', () => {
    const idleEngine = windowOf({}, { e2e: [105, 100], queue: [0, 100], inference: [100, 100] });
    const few = { inFlightS: 110, latencyS: 110 };
    const frames = classifyBottleneck(win({ engine: idleEngine, client: { ...few, framesWaitS: 60 } }));
    assert.equal(frames.kind, 'frames', frames.reason);
    // Waiting on frames with free slots: nothing at the server is full, however much of its latency is before
    // the engine (the demo's pilot: 80 % waiting on frames, half the in-flight time before the engine).
    const gauges = { total: 20, busy: 4, runningSum: 14, waitingSum: 0 };
    const demo = classifyBottleneck(win({ engine: windowOf({}, {}), samples: gauges, client: { inFlightS: 140, framesWaitS: 80, slotWaitS: 19 } }));
    assert.equal(demo.kind, 'frames', demo.reason);
    // The run type's words (what it prepares, its flags) name the knob; vLLM's own by default.
    assert.match(frames.reason, /^bound by our inputs: a free slot waited on input preparation/);
    assert.equal(frames.knob, VLLM_WORDS.prepareKnob);
    const own = { ...VLLM_WORDS, inputs: 'clips', preparation: 'clip probing', prepareKnob: 'more probes', inFlightFlag: '--inflight' };
    const ownFrames = classifyBottleneck(win({ engine: idleEngine, client: { ...few, framesWaitS: 60 } }), own);
    assert.match(ownFrames.reason, /^bound by our clips: a free slot waited on clip probing/);
    assert.equal(ownFrames.knob, 'more probes');
    assert.equal(bottleneckLabel('frames', own), 'bound by our clips');
    const capped = classifyBottleneck(win({ engine: idleEngine, client: { ...few, slotWaitS: 80 } }), own);
    assert.equal(capped.kind, 'client', capped.reason);
    assert.match(capped.knob, /raise in flight per server \(--inflight, now/);
    const starved = classifyBottleneck(win({ engine: idleEngine, client: few }));
    assert.equal(starved.kind, 'client', starved.reason);
  });

  it('names the KV cache or --max-num-seqs when the engine is GPU-bound on them', () => {
    const full = windowOf({}, { kv: 0.99, preempt: 7, e2e: [900, 100], queue: [200, 100], inference: [600, 100] });
    assert.match(classifyBottleneck(win({ engine: full })).knob, /KV cache is full/);
    const atSeqs = windowOf({}, { e2e: [900, 100], queue: [200, 100], inference: [600, 100] });
    const v = classifyBottleneck(win({ engine: atSeqs, maxNumSeqs: 8, samples: { total: 10, busy: 10, runningSum: 80, waitingSum: 30 } }));
    assert.match(v.knob, /raise --max-num-seqs if the KV cache has room/);
    assert.match(
      classifyBottleneck(win({ engine: atSeqs, maxNumSeqs: 8, samples: { total: 10, busy: 10, runningSum: 80, waitingSum: 30 } }), {
        ...VLLM_WORDS,
        maxSeqsFlag: '--seqs',
      }).knob,
      /raise --seqs/,
    );
  });

  it('gives no verdict on too few requests, and is unchanged when every time is scaled', () => {
    assert.equal(classifyBottleneck(win({ client: { requests: 4 } })).kind, 'unknown');
    const arb = fc.record({
      e2e: fc.double({ min: 0, max: 1000, noNaN: true }),
      queue: fc.double({ min: 0, max: 1000, noNaN: true }),
      inference: fc.double({ min: 0, max: 1000, noNaN: true }),
      latency: fc.double({ min: 0, max: 3000, noNaN: true }),
      inFlight: fc.double({ min: 0, max: 3000, noNaN: true }),
      framesWait: fc.double({ min: 0, max: 100, noNaN: true }),
      slotWait: fc.double({ min: 0, max: 100, noNaN: true }),
      busy: fc.integer({ min: 0, max: 20 }),
    });
    fc.assert(
      fc.property(arb, fc.double({ min: 0.01, max: 100, noNaN: true }), (a, k) => {
        const mk = (t: number): Bottleneck => {
          const engine = windowOf({}, { e2e: [a.e2e * t, 100], queue: [a.queue * t, 100], inference: [a.inference * t, 100] });
          return classifyBottleneck({
            wallS: 100 * t,
            engine,
            samples: { total: 20, busy: a.busy, runningSum: a.busy, waitingSum: 0 },
            maxNumSeqs: 32,
            client: {
              requests: 100,
              latencyS: a.latency * t,
              inFlightS: a.inFlight * t,
              framesWaitS: a.framesWait * t,
              slotWaitS: a.slotWait * t,
              capacity: 6,
            },
          });
        };
        assert.equal(mk(k).kind, mk(1).kind);
      }),
      { numRuns: 300 },
    );
  });

  it('a run takes the kind most servers have', () => {
    const v = (kind: Bottleneck['kind']) => ({ ...classifyBottleneck(win({})), kind });
    assert.equal(runBottleneck([v('client'), v('front-end'), v('front-end'), v('unknown')]), 'front-end');
    assert.equal(runBottleneck([v('client'), v('gpu')]), 'gpu');
    assert.equal(runBottleneck([v('unknown')]), 'unknown');
  });
});
