// fpsweep stop: ask the run's worker to stop, the way its run type does (the registry's protocol whose
// findRoots recognises --package): FP drains (stop file + SIGTERM: in-flight requests finish, their rows are
// written); AVTime ends fail-closed on SIGTERM. --wait waits until the worker has given its lock back.
import { PROTOCOLS } from '../../core/protocols/registry';
import { type ProtocolRegistry } from '../../core/protocols/types';
import { requestStop, waitForWorkerExit } from '../../core/runner/control';
import { parseVerbArgs, requirePackage } from '../options';
import { resolveRunRoot } from '../runRoot';
import { defaultStopWords } from '../runText';

export const summary = 'drain and stop the background worker (--wait until it has)';

const HELP = `usage: fpsweep stop --package DIR [--wait]

Asks the worker to stop taking new work, finish the requests in flight, write their rows and exit.
On an AVTime output root (outputs/avtime-bench/<RUN_ID>) it sends the worker SIGTERM: the run is
marked stopped and its lock released; continue it with \`fpsweep avtime run --resume\`.

  --package DIR   the run package or an AVTime output root (or FPSWEEP_PACKAGE)
  --wait          wait until the worker has exited`;

export function run(args: string[]): Promise<number> {
  return stopVerb(args, PROTOCOLS);
}

export async function stopVerb(args: string[], registry: ProtocolRegistry): Promise<number> {
  const values = parseVerbArgs(args, { wait: { type: 'boolean' } }, HELP);
  const { protocol, root } = await resolveRunRoot(registry, requirePackage(values, HELP));
  const req = await requestStop(protocol.runRoot(root));
  const words = protocol.describeStop ? protocol.describeStop(req) : defaultStopWords(protocol, root, req);
  (words.end === 1 ? process.stderr : process.stdout).write(words.line + '\n');
  if (words.end !== undefined) return words.end;
  if (!values.wait) return 0;
  await waitForWorkerExit(protocol.runRoot(root));
  const s = await protocol.readProgress(root);
  process.stdout.write(s.summary ? `${s.summary}\n` : `worker pid ${req.pid} has exited\n`);
  return 0;
}
