// The judge's (Qwen3.6) thinking, as the pinned vLLM serves it:
// - `chat_template_kwargs.enable_thinking` (ChatCompletionRequest, vllm/entrypoints/openai/protocol.py) reaches
//   the chat template; Qwen3's template thinks unless it is false (vLLM's "Reasoning Outputs" page: "The
//   reasoning feature for the Qwen3 series is enabled by default"). From Qwen3.5 on the template puts <think> in
//   the prompt, so the output is `thinking text </think> answer` (vllm/reasoning/qwen3_reasoning_parser.py);
//   with it off, the prompt holds an empty think block and the output is the answer alone.
// - With `--reasoning-parser qwen3` the text before </think> is returned as message.reasoning and the rest as
//   content (the field is `reasoning` since #33402, v0.16; 0.11 called it reasoning_content). The JSON-schema
//   grammar starts only once the reasoning has ended (vllm/v1/structured_output/__init__.py,
//   StructuredOutputManager asks the reasoner is_reasoning_end before advancing the grammar).
// - Without a parser, a json_schema grammar holds from the first token, so a thinking model cannot think
//   (the output is the JSON); without a grammar, its thinking lands in content.
import { z } from 'zod';
import { RequestRefusal } from '../request';
import type { ParsedAvtimeChat } from './body';
import { cutAtTokens, hashFraction, textTokens } from './random';

const THINK_END = '</think>';

const TemplateKwargs = z.object({ enable_thinking: z.boolean().optional() }).passthrough();

/** Whether the chat template thinks for this request (Qwen3: yes unless enable_thinking is false). */
export function thinkingOn(parsed: ParsedAvtimeChat): boolean {
  const raw = (parsed.body as Record<string, unknown>).chat_template_kwargs;
  if (raw === undefined || raw === null) return true;
  const r = TemplateKwargs.safeParse(raw);
  if (!r.success)
    throw new RequestRefusal(400, `stand-in vLLM: chat_template_kwargs must be an object with a boolean enable_thinking, got ${JSON.stringify(raw)}`);
  return r.data.enable_thinking !== false;
}

/** Deterministic thinking text of 40–160 tokens (by the prompt's hash): short enough for the first pass's 512. */
export function thinkingText(prompt: string): string {
  const n = 40 + Math.floor(hashFraction('thinkTokens', prompt) * 120);
  const words = ['the', 'reference', 'caption', 'and', 'the', 'predicted', 'ones', 'share', 'some', 'words', 'so', 'I', 'compare', 'them'];
  return Array.from({ length: n }, (_, i) => words[i % words.length]).join(' ') + '.';
}

export interface JudgeOutput {
  content: string;
  reasoning: string | null;
  finish: 'stop' | 'length';
  completionTokens: number;
}

/**
 * The judge's generated text for `answer` (already inside the schema when one is asked for), cut at `limit`
 * tokens like check_stop, then split by the reasoning parser when the server has one.
 */
export function judgeOutput(parsed: ParsedAvtimeChat, answer: string, reasoningParser: string | null, limit: number): JudgeOutput {
  const grammarFromStart = parsed.body.response_format?.type === 'json_schema' && reasoningParser === null;
  const think = thinkingOn(parsed) && !grammarFromStart;
  const full = think ? `${thinkingText(parsed.promptText)}\n${THINK_END}\n\n${answer}` : answer;
  const wanted = textTokens(full).length;
  const finish = wanted > limit ? 'length' : 'stop';
  const text = finish === 'stop' ? full : cutAtTokens(full, limit);
  const completionTokens = Math.min(wanted, limit);
  if (!think || reasoningParser === null) return { content: text, reasoning: null, finish, completionTokens };
  const end = text.indexOf(THINK_END);
  // Cut inside the thinking: all of it is reasoning, no content (the parser never saw </think>).
  if (end < 0) return { content: '', reasoning: text, finish, completionTokens };
  return { content: text.slice(end + THINK_END.length).replace(/^\n+/, ''), reasoning: text.slice(0, end).replace(/\n+$/, ''), finish, completionTokens };
}
