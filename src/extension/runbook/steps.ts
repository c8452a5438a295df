// How a run type runs its runbook steps (no vscode: the controller hands each step a StepIo). The controller
// (controller.ts) finds the step's run type by its verb and streams what the step writes into the cell.
import { startCli, type CliResult, type CliRun } from '../cli';
import type { RunbookSection } from './format';

export interface StepIo {
  distDir: string;
  /** The knob environment; `withToken` adds HF_TOKEN from SecretStorage (`return --upload`). */
  env(withToken: boolean): Promise<Record<string, string>>;
  token: { isCancellationRequested: boolean; onCancellationRequested(fn: () => void): { dispose(): void } };
  write(text: string, stream: 'stdout' | 'stderr'): void;
}

/** A run type's runbook part with its runner: true when the step succeeded. `pkg`: the runbook's package. */
export interface RunbookSteps extends RunbookSection {
  run(verb: string, args: string[], io: StepIo, pkg: string | undefined): Promise<boolean>;
}

/**
 * `fpsweep <verb> …` in a cell: its output streamed into the cell; interrupting the cell interrupts it, or does what
 * `onInterrupt` says (FP's detached worker is asked to stop instead). How it ended; nothing written about it.
 */
export async function runCliInCell(
  io: StepIo,
  verb: string,
  args: string[],
  env: Record<string, string>,
  cwd: string | undefined,
  onInterrupt: (run: CliRun) => void = (run) => run.interrupt(),
): Promise<CliResult> {
  const run = startCli({ distDir: io.distDir, verb, args, env, cwd, onOutput: (t, s) => io.write(t, s) });
  const sub = io.token.onCancellationRequested(() => onInterrupt(run));
  try {
    return await run.done;
  } finally {
    sub.dispose();
  }
}

/** Writes how a failed run ended, unless the cell was interrupted (the cell says so itself). */
export function writeCliExit(io: StepIo, r: CliResult): void {
  if (r.code !== 0 && !io.token.isCancellationRequested) io.write(`\n(exit ${r.code ?? r.signal})\n`, 'stderr');
}

/** `fpsweep <verb> …` as a runbook step (runCliInCell): true when it exited 0; otherwise its exit is written. */
export async function runCliStep(io: StepIo, verb: string, args: string[], env: Record<string, string>, cwd: string): Promise<boolean> {
  const r = await runCliInCell(io, verb, args, env, cwd);
  writeCliExit(io, r);
  return r.code === 0;
}
