// fpsweep stop: ask the worker to drain (stop file + SIGTERM). It finishes in-flight requests, writes
// their rows, releases the lock and exits. --wait waits for that.
import { PackageLayout } from '../../core/package/layout';
import { requestStop, waitForWorkerExit } from '../../core/runner/control';
import { readStatus } from '../../core/runner/status';
import { parseVerbArgs, requirePackage } from '../options';

export const summary = 'drain and stop the background worker (--wait until it has)';

const HELP = `usage: fpsweep stop --package DIR [--wait]

Asks the worker to stop taking new work, finish the requests in flight, write their rows and exit.

  --package DIR   the run package (or FPSWEEP_PACKAGE)
  --wait          wait until the worker has exited`;

export async function run(args: string[]): Promise<number> {
  const values = parseVerbArgs(args, { wait: { type: 'boolean' } }, HELP);
  const layout = new PackageLayout(requirePackage(values, HELP));
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
