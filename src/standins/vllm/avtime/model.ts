// The AVTime roles of the stand-in behind one call for server.ts: parse the body, answer as the
// target or the judge, count tokens, cut at max_tokens (finish_reason "length") like vLLM.
import type { ServeArgs } from '../args';
import * as msg from '../../../core/serving/vllmMessages';
import { RequestRefusal } from '../request';
import { parseAvtimeBody } from './body';
import { judgeAnswer } from './judge';
import type { AvtimeKnobs, StandinRole } from './knobs';
import { cutAtTokens, textTokens } from './random';
import { targetAnswer } from './target';
import { judgeOutput } from './thinking';
import { captionAnswer, captionState, isCaptionRequest, splitReasoning } from './caption';
import { standinVersion } from '../version';

export interface AvtimeReply {
  model: string;
  promptText: string;
  nVideos: number;
  maxTokens: number | null;
  temperature: number | null;
  content: string;
  /** The judge's thinking when the server has a reasoning parser (message.reasoning); null otherwise. */
  reasoning: string | null;
  finish: 'stop' | 'length';
  promptTokens: number;
  completionTokens: number;
  promptTokenIds: number[] | null;
}

export interface AvtimeModel {
  role: Exclude<StandinRole, 'fp'>;
  /** Chat requests after which the server crashes (0 = never): the judge's own knob. */
  crashAfter: number;
  reply(json: unknown): Promise<AvtimeReply>;
}

export function avtimeModel(role: Exclude<StandinRole, 'fp'>, args: ServeArgs, knobs: AvtimeKnobs): AvtimeModel {
  const caption = captionState(knobs.caption);
  return {
    role,
    crashAfter: role === 'judge' ? knobs.judge.crashAfter : 0,
    async reply(json) {
      const parsed = parseAvtimeBody(json, args.servedModelName);
      let content: string;
      let promptTokens: number;
      let promptTokenIds: number[] | null = null;
      // A caption request (a video_url with its audio_url sidecar) gets the Thinking model's answer (./caption.ts).
      const captioning = role === 'target' && isCaptionRequest(parsed);
      if (captioning) {
        ({ text: content, promptTokens, promptTokenIds } = await captionAnswer(parsed, args, caption, standinVersion(role)));
      } else if (role === 'target') {
        ({ content, promptTokens, promptTokenIds } = await targetAnswer(parsed, args, knobs.target));
      } else {
        if (parsed.videoUrls.length) throw new RequestRefusal(400, 'stand-in vLLM: the judge takes text only (captions, never media)');
        content = judgeAnswer(parsed, knobs.judge).content;
        promptTokens = 20 + textTokens(parsed.promptText).length;
        // Text-only prompts meet the OpenAI layer's check (vllm/entrypoints/openai/serving_engine.py _validate_input)
        // with their real size, as ../server.ts does.
        if (parsed.maxTokens !== null && promptTokens + parsed.maxTokens > args.maxModelLen) {
          throw new RequestRefusal(400, msg.preprocessingMessage(msg.contextLengthExceeded(promptTokens, parsed.maxTokens, args.maxModelLen)));
        }
      }
      const L = args.maxModelLen;
      // vllm/v1/engine/processor.py _validate_model_input: only a prompt strictly longer than max_model_len is
      // refused; vllm/v1/core/sched/utils.py check_stop ends a request at max_tokens or at max_model_len ('length').
      if (promptTokens > L) throw new RequestRefusal(400, msg.decoderPromptTooLong(promptTokens, L));
      const limit = Math.min(L - promptTokens, parsed.maxTokens ?? L - promptTokens);
      if (role === 'judge') {
        const out = judgeOutput(parsed, content, args.reasoningParser, limit);
        return {
          model: parsed.body.model,
          promptText: parsed.promptText,
          nVideos: 0,
          maxTokens: parsed.maxTokens,
          temperature: parsed.body.temperature ?? null,
          promptTokens,
          promptTokenIds: null,
          ...out,
        };
      }
      const wanted = textTokens(content).length;
      const finish = wanted > limit ? 'length' : 'stop';
      const generated = finish === 'stop' ? content : cutAtTokens(content, limit);
      const split = captioning ? splitReasoning(generated, args.reasoningParser) : { content: generated, reasoning: null };
      return {
        model: parsed.body.model,
        promptText: parsed.promptText,
        nVideos: parsed.videoUrls.length,
        maxTokens: parsed.maxTokens,
        temperature: parsed.body.temperature ?? null,
        ...split,
        finish,
        promptTokens,
        completionTokens: Math.min(wanted, limit),
        promptTokenIds,
      };
    },
  };
}
