// fpsweep status: the worker's progress, for any run type of the registry: the protocol whose findRoots
// recognises --package says it (its statusView, else its readProgress snapshot); --wait follows it until
// the worker ends, or until its status file has not been written for --stale seconds (a live worker writes it
// each second: one that stops writing is hung, and waiting on it would never end); --json prints the protocol's
// status object.
import { promises as fs } from 'node:fs';
import { UsageError } from '../../core/errors';
import { PROTOCOLS } from '../../core/protocols/registry';
import { runRootsOf, type ProtocolRegistry } from '../../core/protocols/types';
import { numberFlag, packageOption, parseCommandArgs, requirePackage, stringFlag, type OptionSpec } from '../../core/cli/options';
import { completenessLines, copiesCompleteness } from '../../core/protocols/fp/merge/completeness';
import { resolveRunRoots } from '../runRoot';
import { defaultStatusView } from '../runText';

export const summary = "the worker's progress (--wait until it ends, --json)";

/** How long --wait follows a worker whose status file does not change, by default. */
export const STATUS_STALE_DEFAULT_S = 10 * 60;

const HELP = `usage: fpsweep status --package DIR [--run-type ID] [--wait [--stale SECONDS]] [--json]
       fpsweep status --package DIR COPY [COPY...] [--json]

Shows the background worker's progress: per benchmark × condition rows done and to do, failures,
throughput, ETA and server health. With no worker alive, counts are recomputed from the results CSV.

  --package DIR   the run package, or an AVTime output root (its stages, shards and judge passes)
                  (or FPSWEEP_PACKAGE)
  --run-type ID   the run type to show when DIR is the root of more than one (a cut's output root is also
                  captioning's videos root: without it, the text shows each; --json and --wait need it)
  --wait          follow the progress until the worker ends (exit 0 done, 1 failed); exit 1 as well
                  when its status file has not changed for --stale seconds (default ${STATUS_STALE_DEFAULT_S})
  --json          print the status object (schema: src/core/protocols/fp/status/statusSchema.ts)

fpsweep status --package DIR COPY [COPY...]: the sharded copies of the run package DIR (each
\`run --shard K/N\` on its own copy, e.g. one per Slurm array task) taken together, as \`merge\` would
take them: what each shard still has to do (or that its task still runs) and the command that
finishes it. Exit 0 when the plan is complete, 1 otherwise; nothing is changed.

Rerun: reads only: shows the state again and writes nothing.`;

/** Its flags; --run-type names one of the registry's run types. */
export function statusFlags(registry: ProtocolRegistry = PROTOCOLS) {
  return {
    package: { type: 'string', short: 'p', meta: 'DIR', value: { kind: 'path', is: 'dir', env: 'FPSWEEP_PACKAGE' } },
    wait: { type: 'boolean' },
    json: { type: 'boolean' },
    stale: { type: 'string', meta: 'SECONDS', value: { kind: 'int', min: 1, max: 31_536_000, default: STATUS_STALE_DEFAULT_S } },
    'run-type': { type: 'string', meta: 'ID', value: { kind: 'enum', values: registry.ids } },
  } satisfies OptionSpec;
}
export const flags = statusFlags();

export function run(args: string[]): Promise<number> {
  return statusVerb(args, PROTOCOLS);
}

export async function statusVerb(args: string[], registry: ProtocolRegistry): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { ...packageOption, ...statusFlags(registry) }, true, HELP);
  if (positionals.length > 0) return copiesStatus(requirePackage(values, HELP), positionals, values.json === true);
  const runs = await resolveRunRoots(registry, requirePackage(values, HELP), stringFlag(values, 'run-type'));
  if (runs.length > 1) {
    const ids = runs.map((r) => r.protocol.id).join('|');
    if (values.json || values.wait)
      throw new UsageError(`${runs[0].root} is the root of ${runs.length} run types: give --run-type ${ids} with --json or --wait`);
    const views = await Promise.all(runs.map(({ protocol, root }) => (protocol.statusView ? protocol.statusView(root) : defaultStatusView(protocol, root))));
    process.stdout.write(views.map((v) => v.text).join('\n\n') + '\n');
    return 0;
  }
  const [{ protocol, root }] = runs;
  const staleMs = numberFlag(values, 'stale')! * 1000;
  const read = () => (protocol.statusView ? protocol.statusView(root) : defaultStatusView(protocol, root));
  // Every engine state's status file (a sharded run's ranks): the run writes while any of them is written. Listed
  // again at each poll: a rank that starts after the wait began (another node of the array) counts too.
  let runRoots: Awaited<ReturnType<typeof runRootsOf>> = [];
  const written = async () => {
    runRoots = await runRootsOf(protocol, root);
    const times = await Promise.all(
      runRoots.map((r) =>
        fs.stat(r.statusFile).then(
          (s) => s.mtimeMs,
          () => null,
        ),
      ),
    );
    return times.some((t) => t !== null) ? Math.max(...times.map((t) => t ?? 0)) : null;
  };
  let view = await read();
  let last = '';
  let lastWrite = await written();
  let changedAt = Date.now();
  while (values.wait && view.live) {
    if (view.line !== last && !values.json) process.stderr.write(view.line + '\n');
    last = view.line;
    await new Promise((r) => setTimeout(r, 2000));
    view = await read();
    const w = await written();
    if (w !== lastWrite) [lastWrite, changedAt] = [w, Date.now()];
    else if (view.live && Date.now() - changedAt > staleMs) {
      process.stdout.write((values.json ? JSON.stringify(view.json) : view.text) + '\n');
      const statusFiles = runRoots.map((r) => r.statusFile).join(', ');
      const runnerLogs = runRoots.map((r) => r.runnerLog).join(', ');
      process.stderr.write(
        `the worker holds the run's lock but has not written ${statusFiles} for ${Math.round(staleMs / 1000)} s: it looks hung. ` +
          `See ${runnerLogs}; \`fpsweep stop --package ${root}\` asks it to stop.\n`,
      );
      return 1;
    }
  }
  process.stdout.write((values.json ? JSON.stringify(view.json) : view.text) + '\n');
  if (values.wait) return view.ok ? 0 : 1;
  return 0;
}

/** The copies of a sharded sweep against their plan (what `merge` checks before it writes). */
async function copiesStatus(into: string, copies: string[], json: boolean): Promise<number> {
  const c = await copiesCompleteness(into, copies);
  if (json) process.stdout.write(JSON.stringify(c) + '\n');
  else {
    const scope = `${c.count !== null ? `${c.count} shard(s)` : 'unsharded copies'}, ${c.benchmarks ? c.benchmarks.join(',') : 'every benchmark'}`;
    const head =
      c.left === 0 && c.shards.length === 0
        ? `${copiesWord(copies.length)} of ${into} (${scope}): the plan is complete`
        : `${copiesWord(copies.length)} of ${into} (${scope}): ${c.left} unit(s) of the plan not written yet`;
    const failed = c.failed ? `\n${c.failed} unit(s) failed (their failure lines; a run asks them again)` : '';
    process.stdout.write([head, ...completenessLines(c).map((l) => `  ${l}`)].join('\n') + failed + '\n');
  }
  return c.left === 0 && c.shards.length === 0 ? 0 : 1;
}

const copiesWord = (n: number) => `${n} ${n === 1 ? 'copy' : 'copies'}`;
