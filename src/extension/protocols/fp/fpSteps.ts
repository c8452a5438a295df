// Runs Frames × Pixels' runbook steps: one `fpsweep <verb>` on the runbook's package, its output streamed into
// the cell. `run … --detach` starts the background worker, then follows it with `status --wait` (the CLI's
// staleness check included); interrupting that cell stops the worker (`fpsweep stop`). Other steps stop on SIGINT.
// No vscode import: the controller gives what a step needs.
import * as path from 'node:path';
import { startCli, type CliResult, type CliRun } from '../../cli';
import { runCliInCell, writeCliExit, type RunbookSteps, type StepIo } from '../../runbook/steps';
import { fpRunbook } from './fpRunbook';

/** Runs one verb; on interrupt either SIGINTs it (`ownInterrupt`) or asks the worker to stop. */
async function follow(io: StepIo, verb: string, args: string[], env: Record<string, string>, pkg: string, ownInterrupt: boolean): Promise<CliResult> {
  const askWorkerToStop = (run: CliRun) => {
    io.write('\nStopping the worker…\n', 'stdout');
    const stop = startCli({ distDir: io.distDir, verb: 'stop', args: ['--package', pkg], env, onOutput: (t, s) => io.write(t, s) });
    void stop.done.then(() => run.interrupt());
  };
  const r = await runCliInCell(io, verb, args, env, path.resolve(pkg), ownInterrupt ? undefined : askWorkerToStop);
  writeCliExit(io, r);
  return r;
}

/** `runFlags`: what the settings add to a `run` step (fpsweep.basePort's `--base-port`), given the step's own arguments. */
export function fpSteps(onWorkerStarted: () => void, runFlags: (given: readonly string[]) => string[] = () => []): RunbookSteps {
  return {
    ...fpRunbook,
    async run(verb, written, io, pkg) {
      if (!pkg) throw new Error('No run package: open the package folder or set fpsweep.packagePath.');
      const stepArgs = verb === 'run' ? [...written, ...runFlags(written)] : [...written];
      const detach = verb === 'run' && stepArgs.includes('--detach');
      const env = await io.env(verb === 'return' && stepArgs.includes('--upload'));
      io.write(`$ fpsweep ${verb} ${stepArgs.join(' ')}\n`.replace(/ \n$/, '\n'), 'stdout');
      const first = await follow(io, verb, [...stepArgs, '--package', pkg], env, pkg, !detach);
      if (first.code !== 0 || !detach) return first.code === 0;
      onWorkerStarted();
      io.write('\nFollowing the worker (interrupt this cell to stop it)…\n', 'stdout');
      return (await follow(io, 'status', ['--wait', '--package', pkg], env, pkg, false)).code === 0;
    },
  };
}
