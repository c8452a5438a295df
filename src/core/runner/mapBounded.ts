// One bounded pool for local work (ffprobe, ffmpeg, hashing): at most `limit` calls of `fn` at once, results in
// the order of `items`. Requests to servers go through the scheduler instead; this is for work on this machine.

export interface MapBoundedOptions {
  /** Aborting it stops new work like a failure does; the call then throws `signal.reason`. */
  signal?: AbortSignal;
}

/**
 * Maps `items` through `fn` with at most `limit` calls in flight; result i is `fn(items[i], i, lane)`, where `lane`
 * (0 … limit−1) is the slot running it: one slot runs one call at a time (work pinned per slot, e.g. to a GPU).
 *
 * First error wins: once a call throws (or `signal` aborts), no new item starts, the calls already running are
 * awaited (so nothing keeps writing after this returns), and the first error is thrown; later errors are dropped.
 * `limit` must be a whole number ≥ 1.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number, lane: number) => Promise<R>,
  opts: MapBoundedOptions = {},
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`mapBounded: limit must be a whole number ≥ 1, got ${limit}`);
  const { signal } = opts;
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const stopped = (): boolean => {
    if (!failure && signal?.aborted) failure = { error: signal.reason };
    return failure !== null;
  };
  const runLane = async (_: unknown, lane: number): Promise<void> => {
    while (next < items.length && !stopped()) {
      const i = next++;
      try {
        results[i] = await fn(items[i], i, lane);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runLane));
  if (failure) throw (failure as { error: unknown }).error;
  return results;
}
