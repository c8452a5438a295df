// `fpsweep status` and `fpsweep stop` in Frames × Pixels' words: the worker's status file as formatStatus
// prints it (recounted from the CSV when no worker is alive), and the drain request's line.
import { PackageLayout } from './package/layout';
import { formatStatus, statusLine } from './status/formatStatus';
import { readLiveStatus } from './sweep/liveStatus';
import type { StatusView, StopResult, StopWords } from '../types';

export async function fpStatusView(root: string): Promise<StatusView> {
  const live = await readLiveStatus(new PackageLayout(root));
  const json = { alive: live.alive, pid: live.pid, status: live.status };
  if (!live.status) {
    const text = live.alive ? `worker pid ${live.pid} is starting (no status yet)` : 'no worker has run on this package yet';
    return { live: live.alive, line: 'worker starting', text, json, ok: true };
  }
  const ok = live.status.state === 'done' || live.status.state === 'stopped';
  return { live: live.alive, line: statusLine(live.status), text: formatStatus(live.status, live.alive), json, ok };
}

export function fpStopWords(req: StopResult): StopWords {
  if (req.pid === null) return { line: 'no worker is running on this package', end: 0 };
  return { line: `asked worker pid ${req.pid} to drain and stop${req.signalled ? ' (SIGTERM sent)' : ' (stop file written)'}` };
}
