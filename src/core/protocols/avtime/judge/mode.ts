// The judge's mode (SPEC-AVTIME §6): Qwen3.6 thinks or not as its chat template is told
// (`chat_template_kwargs.enable_thinking`); the seed does not say which the reference used, so non-thinking
// is the default and --judge-thinking turns thinking on. The mode is part of each template's prompt_version,
// so it is in every response's identity: a stored answer of the other mode is never reused.
import type { JudgeKind } from './schemas';
import type { JudgeMode, JudgeTemplate } from './template';

export function judgeMode(thinking: boolean): JudgeMode {
  return thinking ? 'thinking' : 'non-thinking';
}

/** What the request sends: `chat_template_kwargs: {enable_thinking}` (vLLM's ChatCompletionRequest field). */
export function chatTemplateKwargs(mode: JudgeMode): { enable_thinking: boolean } {
  return { enable_thinking: mode === 'thinking' };
}

/** The templates of a run in `mode`: prompt_version gains `+<mode>` (the identity of §6), the text is unchanged. */
export function withJudgeMode(templates: Readonly<Record<JudgeKind, JudgeTemplate>>, mode: JudgeMode): Record<JudgeKind, JudgeTemplate> {
  const out = {} as Record<JudgeKind, JudgeTemplate>;
  for (const [kind, t] of Object.entries(templates) as [JudgeKind, JudgeTemplate][]) {
    if (t.mode !== undefined) throw new Error(`judge template ${kind} already has the ${t.mode} mode`);
    out[kind] = { ...t, prompt_version: `${t.prompt_version}+${mode}`, mode };
  }
  return out;
}
