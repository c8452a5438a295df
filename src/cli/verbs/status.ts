// fpsweep status: the worker's progress from .fpsweep/status.json (recomputed from the CSV when no
// worker is alive); --wait follows it until the worker ends; --json prints the status object.
import { PackageLayout } from '../../core/package/layout';
import { readLiveStatus } from '../../core/protocols/fp/sweep/liveStatus';
import { formatStatus, statusLine } from '../../core/runner/formatStatus';
import { parseVerbArgs, requirePackage } from '../options';
import { formatAvtimeView, isAvtimeRoot, readAvtimeProgress } from '../../core/protocols/avtime/control';

export const summary = "the worker's progress (--wait until it ends, --json)";

const HELP = `usage: fpsweep status --package DIR [--wait] [--json]

Shows the background worker's progress: per benchmark × condition rows done and to do, failures,
throughput, ETA and server health. With no worker alive, counts are recomputed from the results CSV.

  --package DIR   the run package, or an AVTime output root (its stages, shards and judge passes)
                  (or FPSWEEP_PACKAGE)
  --wait          follow the progress until the worker ends (exit 0 done, 1 failed)
  --json          print the status object (schema: src/core/runner/statusSchema.ts)`;

export async function run(args: string[]): Promise<number> {
  const values = parseVerbArgs(args, { wait: { type: 'boolean' }, json: { type: 'boolean' } }, HELP);
  const dir = requirePackage(values, HELP);
  if (isAvtimeRoot(dir)) return statusAvtime(dir, values.wait === true, values.json === true);
  const layout = new PackageLayout(dir);
  if (values.wait) {
    let last = '';
    for (;;) {
      const live = await readLiveStatus(layout);
      if (!live.alive) break;
      const line = live.status ? statusLine(live.status) : 'worker starting';
      if (line !== last && !values.json) process.stderr.write(line + '\n');
      last = line;
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
  const live = await readLiveStatus(layout);
  if (!live.status) {
    if (values.json) process.stdout.write(JSON.stringify({ alive: live.alive, pid: live.pid, status: null }) + '\n');
    else process.stdout.write(live.alive ? `worker pid ${live.pid} is starting (no status yet)\n` : 'no worker has run on this package yet\n');
    return 0;
  }
  if (values.json) process.stdout.write(JSON.stringify({ alive: live.alive, pid: live.pid, status: live.status }) + '\n');
  else process.stdout.write(formatStatus(live.status, live.alive) + '\n');
  if (values.wait) return live.status.state === 'done' || live.status.state === 'stopped' ? 0 : 1;
  return 0;
}

async function statusAvtime(root: string, wait: boolean, json: boolean): Promise<number> {
  let view = await readAvtimeProgress(root);
  let last = '';
  while (wait && view.live) {
    const line = view.stages.map((s) => `${s.name} ${s.state}`).join(', ');
    if (line !== last && !json) process.stderr.write(`AVTime ${view.runId}: ${line}\n`);
    last = line;
    await new Promise((r) => setTimeout(r, 2000));
    view = await readAvtimeProgress(root);
  }
  process.stdout.write((json ? JSON.stringify(view) : formatAvtimeView(view)) + '\n');
  if (wait) return view.state === 'done' ? 0 : 1;
  return 0;
}
