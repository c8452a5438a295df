// What a judge template is and the judge's modes: the types the templates (prompts.ts) and the mode (mode.ts) both
// use, below both of them.
import type { JudgeKind } from './schemas';

/** Thinking or not (mode.ts): part of each template's prompt_version. */
export type JudgeMode = 'non-thinking' | 'thinking';

export interface JudgeTemplate {
  kind: JudgeKind;
  text: string;
  prompt_version: string;
  /** sha256 of the template text (UTF-8): what `sha256sum prompts/judge_<kind>.txt` prints for the file. */
  prompt_sha256: string;
  /** The judge's mode (mode.ts withJudgeMode): sent as chat_template_kwargs; absent = non-thinking. */
  mode?: JudgeMode;
}
