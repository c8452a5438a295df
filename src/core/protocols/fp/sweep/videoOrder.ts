// Frames × Pixels's order of videos for the request runner: longest first within windows, the run starting on
// the videos quickest to prepare (their frames). The scheduler serves jobs in the order it is given them; this
// order is the sweep's (and the benches' that simulate it).
import type { SchedJob } from '../../../runner/scheduler';

/**
 * Frame-preparation estimate of a video: one request's cost per group (the requests of a group share
 * their frames), summed over groups — proportional to the distinct frames to prepare.
 */
export function prepEstimate(video: SchedJob): number {
  const perGroup = new Map<string, number>();
  for (const t of video.tasks) perGroup.set(t.group, Math.max(perGroup.get(t.group) ?? 0, t.cost));
  let s = 0;
  for (const c of perGroup.values()) s += c;
  return s;
}

/**
 * Longest first within windows of `window` videos (in plan order otherwise): preparation starts on the
 * costliest videos of each window, so the run's last window ends on small videos and the tail is
 * short, while benchmarks still complete roughly in plan order.
 * `head`: the run starts with the `head` videos of the first window that are quickest to prepare, so
 * the servers get their first requests after the shortest preparation rather than the longest (the
 * costliest videos, first otherwise, are also the slowest to prepare); the tail is unchanged.
 */
export function longestFirstWithinWindows<V extends SchedJob>(videos: readonly V[], window: number, head = 0): V[] {
  const cost = new Map<V, number>(videos.map((v) => [v, v.tasks.reduce((s, t) => s + t.cost, 0)]));
  const out: V[] = [];
  for (let i = 0; i < videos.length; i += window) {
    const win = videos.slice(i, i + window);
    if (i === 0 && head > 0 && win.length > head) {
      const prep = new Map<V, number>(win.map((v) => [v, prepEstimate(v)]));
      const quick = [...win].sort((a, b) => prep.get(a)! - prep.get(b)!).slice(0, head);
      out.push(...quick);
      out.push(...win.filter((v) => !quick.includes(v)).sort((a, b) => cost.get(b)! - cost.get(a)!));
      continue;
    }
    out.push(...win.sort((a, b) => cost.get(b)! - cost.get(a)!));
  }
  return out;
}
