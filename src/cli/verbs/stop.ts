// fpsweep stop: ask the worker to drain (stop file + SIGTERM). It finishes in-flight requests, writes
// their rows, releases the lock and exits. --wait waits for that.
import { PackageLayout } from '../../core/package/layout';
import { requestStop, waitForWorkerExit } from '../../core/runner/control';
import { readStatus } from '../../core/runner/status';
import { parseVerbArgs, requirePackage } from '../options';
import { avtimeLock, isAvtimeRoot, requestAvtimeStop } from '../../core/protocols/avtime/control';
import { readAvtimeStatus } from '../../core/protocols/avtime/stages/statusWriter';
import * as path from 'node:path';

export const summary = 'drain and stop the background worker (--wait until it has)';

const HELP = `usage: fpsweep stop --package DIR [--wait]

Asks the worker to stop taking new work, finish the requests in flight, write their rows and exit.
On an AVTime output root (outputs/avtime-bench/<RUN_ID>) it sends the worker SIGTERM: the run is
marked stopped and its lock released; continue it with \`fpsweep avtime run --resume\`.

  --package DIR   the run package or an AVTime output root (or FPSWEEP_PACKAGE)
  --wait          wait until the worker has exited`;

export async function run(args: string[]): Promise<number> {
  const values = parseVerbArgs(args, { wait: { type: 'boolean' } }, HELP);
  const dir = requirePackage(values, HELP);
  if (isAvtimeRoot(dir)) return stopAvtime(path.resolve(dir), values.wait === true);
  const layout = new PackageLayout(dir);
  const req = await requestStop(layout);
  if (req.pid === null) {
    process.stdout.write('no worker is running on this package\n');
    return 0;
  }
  process.stdout.write(`asked worker pid ${req.pid} to drain and stop${req.signalled ? ' (SIGTERM sent)' : ' (stop file written)'}\n`);
  if (!values.wait) return 0;
  await waitForWorkerExit(layout);
  const s = await readStatus(layout);
  process.stdout.write(s?.summary ? `${s.summary}\n` : `worker pid ${req.pid} has exited\n`);
  return 0;
}

async function stopAvtime(root: string, wait: boolean): Promise<number> {
  const req = await requestAvtimeStop(root);
  if (req.pid === null) {
    process.stdout.write('no AVTime worker is running on this output root\n');
    return 0;
  }
  if (!req.signalled) {
    process.stderr.write(`the AVTime worker pid ${req.pid} runs on another host: stop it there (kill -TERM ${req.pid})\n`);
    return 1;
  }
  process.stdout.write(`asked AVTime worker pid ${req.pid} to stop (SIGTERM sent)\n`);
  if (!wait) return 0;
  await waitForWorkerExit(avtimeLock(root));
  const s = await readAvtimeStatus(path.join(root, '.fpsweep', 'avtime-status.json'));
  process.stdout.write(s?.summary ? `${s.summary}\n` : `worker pid ${req.pid} has exited\n`);
  return 0;
}
