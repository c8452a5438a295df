// Wait, bounded, until every server of a fleet is up again (a crash restarts it): for work that is sent to one
// server as a whole and so waits for it, where the runner's server health (runner/serverHealth.ts) would instead
// move single requests between the servers while they come and go.
import type { Fleet } from './launcher';

/** true once every server is up; false when one is down for good, at the timeout, or when `signal` aborts. */
export function waitUntilUp(fleet: Fleet, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
  const verdict = () => (fleet.handles.some((h) => h.state === 'down') ? false : fleet.handles.every((h) => h.state === 'up') ? true : null);
  const now = signal?.aborted ? false : verdict();
  if (now !== null) return Promise.resolve(now);
  return new Promise((resolve) => {
    const done = (v: boolean) => {
      clearTimeout(timer);
      fleet.off('state', onState);
      signal?.removeEventListener('abort', onAbort);
      resolve(v);
    };
    const onState = () => {
      const v = verdict();
      if (v !== null) done(v);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    fleet.on('state', onState);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
