// fpsweep stop: ask the run's worker to stop (the registry's protocol that recognises --package), each of them
// where the run has several engine states (runRootsOf: a sharded caption run's ranks): the engine writes the stop
// file and sends SIGTERM to the lock holder on this host; what a stop means is the run's session policy: FP drains
// (in-flight requests finish, their rows are written), AVTime fails closed (in-flight requests are cut).
// --wait waits until the worker has given its lock back, for at most
// --timeout seconds: a drain ends when the requests in flight are answered, and the client gives up on an answer
// after 30 min (serving/client.ts), so the default leaves that and some more.
import * as path from 'node:path';
import { PROTOCOLS } from '../../core/protocols/registry';
import { runRootsOf, type ProtocolRegistry, type RunRoot, type StopResult, type StopWords } from '../../core/protocols/types';
import { isWorkerAlive, requestStop, waitForWorkerExit } from '../../core/runner/control';
import { UsageError } from '../../core/errors';
import { numberFlag, parseVerbArgs, requirePackage, stringFlag, type OptionSpec } from '../../core/cli/options';
import { resolveRunRoots } from '../runRoot';
import { defaultStopWords } from '../runText';

export const summary = 'drain and stop the background worker (--wait until it has)';

/** How long --wait waits by default: the client's 30 min for an answer in flight, and margin. */
export const STOP_WAIT_DEFAULT_S = 40 * 60;

const HELP = `usage: fpsweep stop --package DIR [--run-type ID] [--wait [--timeout SECONDS]]

Asks the worker to stop (the stop file, then SIGTERM). A run package's worker takes no new work,
finishes the requests in flight, writes their rows and exits. On an AVTime output root
(outputs/avtime-bench/<RUN_ID>) the worker cuts its requests in flight at once: the run is marked
stopped and its lock released; continue it with \`fpsweep avtime run --resume\`.

  --package DIR   the run package or an AVTime output root (or FPSWEEP_PACKAGE)
  --run-type ID   the run type to stop when DIR is the root of more than one (a cut's output root is also
                  captioning's videos root); without it, the one whose worker is alive
  --wait          wait until the worker has exited (exit 1 if it has not within --timeout)
  --timeout S     how long --wait waits, in seconds (default ${STOP_WAIT_DEFAULT_S}: an answer in flight may take 30 min)

Rerun: says "no worker is running" and exits 0 once the worker is gone.`;

export function run(args: string[]): Promise<number> {
  return stopVerb(args, PROTOCOLS);
}

/** Its flags; --run-type names one of the registry's run types. */
export function stopFlags(registry: ProtocolRegistry = PROTOCOLS) {
  return {
    package: { type: 'string', short: 'p', meta: 'DIR', value: { kind: 'path', is: 'dir', env: 'FPSWEEP_PACKAGE' } },
    wait: { type: 'boolean' },
    timeout: { type: 'string', meta: 'SECONDS', value: { kind: 'int', min: 1, max: 31_536_000, default: STOP_WAIT_DEFAULT_S } },
    'run-type': { type: 'string', meta: 'ID', value: { kind: 'enum', values: registry.ids } },
  } satisfies OptionSpec;
}
export const flags = stopFlags();

export async function stopVerb(args: string[], registry: ProtocolRegistry): Promise<number> {
  const values = parseVerbArgs(args, stopFlags(registry), HELP);
  const { protocol, root } = await oneRunToStop(registry, requirePackage(values, HELP), stringFlag(values, 'run-type'));
  const timeoutS = numberFlag(values, 'timeout')!;
  // Every engine state of the root (a sharded run's ranks), each asked and reported; one state reads as before.
  const runRoots = await runRootsOf(protocol, root);
  const several = runRoots.length > 1;
  const asked: { runRoot: RunRoot; req: StopResult; words: StopWords }[] = [];
  for (const runRoot of runRoots) {
    const req = await requestStop(runRoot);
    const words = protocol.describeStop ? protocol.describeStop(req) : defaultStopWords(protocol, root, req);
    const label = several ? `${path.relative(root, runRoot.stateDir)}: ` : '';
    (words.end === 1 ? process.stderr : process.stdout).write(label + words.line + '\n');
    asked.push({ runRoot, req, words });
  }
  if (asked.some((a) => a.words.end === 1)) return 1;
  if (asked.every((a) => a.words.end !== undefined)) return asked[0].words.end!;
  if (!values.wait) return 0;
  const deadline = Date.now() + timeoutS * 1000;
  let left = 0;
  for (const { runRoot, req } of asked.filter((a) => a.req.pid !== null)) {
    if (await waitForWorkerExit(runRoot, Math.max(0, deadline - Date.now()))) continue;
    left++;
    process.stderr.write(
      `worker pid ${req.pid} still holds ${runRoot.lockFile} after ${timeoutS} s: it has not finished stopping. ` +
        `See ${runRoot.runnerLog}; wait again with \`fpsweep stop --package ${root} --wait\`, or end it with \`kill ${req.pid}\`.\n`,
    );
  }
  if (left) return 1;
  const s = await protocol.readProgress(root);
  const pids = asked.flatMap((a) => (a.req.pid === null ? [] : [a.req.pid]));
  process.stdout.write(s.summary ? `${s.summary}\n` : `worker pid ${pids.join(', ')} has exited\n`);
  return 0;
}

/** The run type to stop: the only one DIR is a root of, --run-type's, or of several the one whose worker lives. */
async function oneRunToStop(registry: ProtocolRegistry, dir: string, runType: string | undefined) {
  const runs = await resolveRunRoots(registry, dir, runType);
  if (runs.length === 1) return runs[0];
  const alive = async (r: (typeof runs)[number]) => (await Promise.all((await runRootsOf(r.protocol, r.root)).map((rr) => isWorkerAlive(rr)))).some(Boolean);
  const live = (await Promise.all(runs.map(async (r) => ((await alive(r)) ? r : null)))).filter((r) => r !== null);
  if (live.length === 1) return live[0];
  const ids = runs.map((r) => r.protocol.id).join('|');
  throw new UsageError(
    `${runs[0].root} is a run root of more than one run type (${ids}) and ${live.length ? 'more than one' : 'none'} has a live worker; ` +
      'say which with --run-type ID',
  );
}
