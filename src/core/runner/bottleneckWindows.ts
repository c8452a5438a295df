// The bottleneck verdict's windows during a run: vLLM's side from the metrics poller (growth since the window's
// start scrape, the sampled gauges), ours from the scheduler's time accounts and the request channel's latencies.
// All three start when the scheduler starts (the pre-flight is left out); the wall is the poller's clock since then.
import { metricsDelta } from '../serving/engineMetrics';
import { classifyBottleneck, type Bottleneck, type BottleneckWords, type ServerWindow } from './bottleneck';
import type { EngineWindow } from './metricsPoller';
import type { ServerTimeAccount } from './scheduler';

export interface BottleneckSources {
  engineWindows(): EngineWindow[];
  timeAccounts(): ServerTimeAccount[];
  answeredTime(index: number): { requests: number; latencyS: number };
  /** In-flight cap per server (WORKERS). */
  capacity: number;
  /** --max-num-seqs of launched servers; null for --endpoints (unknown). */
  maxNumSeqs: number | null;
  /** Same clock as the poller's (ms). */
  now(): number;
  /** The run type's words in the verdicts. */
  words: BottleneckWords;
}

export function serverWindows(src: BottleneckSources): ServerWindow[] {
  const accounts = src.timeAccounts();
  const now = src.now();
  return src.engineWindows().map((ew, i) => {
    const a = accounts[i] ?? { slotWaitS: 0, framesWaitS: 0, inFlightS: 0 };
    return {
      wallS: Math.max(0, (now - ew.startedAt) / 1000),
      engine: ew.first && ew.last ? metricsDelta(ew.first, ew.last) : null,
      samples: ew.samples,
      maxNumSeqs: src.maxNumSeqs,
      client: { ...src.answeredTime(i), ...a, capacity: src.capacity },
    };
  });
}

export function serverVerdicts(src: BottleneckSources): Bottleneck[] {
  return serverWindows(src).map((w) => classifyBottleneck(w, src.words));
}
