// The `fpsweep.cut.*` settings as data (no vscode: tested under plain mocha) and the `fpsweep avtime cut …` arguments
// "Cut videos…" runs with: the input root, the output root, the cutter (`builtin` or the user's command), and --detach.
import { z } from 'zod';

export const cutSettingsSchema = z.object({
  inputRoot: z.string().default(''),
  outputRoot: z.string().default(''),
  cutter: z.string().default('builtin'),
  allowDegraded: z.boolean().default(false),
});
export type CutSettings = z.infer<typeof cutSettingsSchema>;

/** The CLI's verb for cutting (two words: the run type serves it under AVTime's verb). */
export const CUT_VERB = 'avtime cut';

export const BUILTIN_CUTTER = 'builtin';

export interface CutStartAnswers {
  inputRoot: string;
  outputRoot: string;
  /** `builtin`, or the cutter's command line with its placeholders (`{input}`, `{config}`, `{staging}`). */
  cutter: string;
  allowDegraded: boolean;
}

/** Why a cutter answer cannot be used, or undefined. */
export function cutterProblem(cutter: string): string | undefined {
  const t = cutter.trim();
  if (!t) return `give '${BUILTIN_CUTTER}' or the cutter's command (placeholders {input}, {config}, {staging})`;
  if (t !== BUILTIN_CUTTER && !t.includes('{input}')) return "a cutter command takes the source video as '{input}'";
  return undefined;
}

/** `fpsweep avtime cut --input-root IN --output-root OUT --cutter C [--allow-degraded] --detach`: the words after `avtime`. */
export function cutCliArgs(a: CutStartAnswers): string[] {
  const args = ['cut', '--input-root', a.inputRoot, '--output-root', a.outputRoot, '--cutter', a.cutter.trim()];
  // The builtin cutter is degraded by design and says so; the flag is for a command whose detectors may be missing.
  if (a.allowDegraded && a.cutter.trim() !== BUILTIN_CUTTER) args.push('--allow-degraded');
  args.push('--detach');
  return args;
}
