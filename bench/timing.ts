// Shared by the status benches: the median wall time of `repeat` calls of `fn`, in seconds.
import { performance } from 'node:perf_hooks';

export async function medianSeconds(repeat: number, fn: () => Promise<void> | void): Promise<number> {
  const xs: number[] = [];
  for (let k = 0; k < repeat; k++) {
    const t = performance.now();
    await fn();
    xs.push((performance.now() - t) / 1000);
  }
  return xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}
