// How a run type runs its runbook steps (no vscode: the controller hands each step a StepIo). The controller
// (controller.ts) finds the step's run type by its verb and streams what the step writes into the cell.
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
