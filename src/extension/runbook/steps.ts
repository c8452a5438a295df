// How a run type runs its runbook steps (no vscode: the controller hands each step a StepIo). The controller
// (controller.ts) finds the step's run type by its verb and streams what the step writes into the cell.
import { startCli } from '../cli';
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
 * `fpsweep <verb> …` with its output streamed into the cell; interrupting the cell interrupts it. True when it
 * exited 0; otherwise its exit is written (not after an interrupt: the cell says so itself).
 */
export async function runCliStep(io: StepIo, verb: string, args: string[], env: Record<string, string>, cwd: string): Promise<boolean> {
  const run = startCli({ distDir: io.distDir, verb, args, env, cwd, onOutput: (t, s) => io.write(t, s) });
  const sub = io.token.onCancellationRequested(() => run.interrupt());
  let r;
  try {
    r = await run.done;
  } finally {
    sub.dispose();
  }
  if (r.code === 0) return true;
  if (!io.token.isCancellationRequested) io.write(`\n(exit ${r.code ?? r.signal})\n`, 'stderr');
  return false;
}
