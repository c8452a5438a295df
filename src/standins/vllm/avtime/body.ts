// The chat body the AVTime models get: text and video_url parts, mm_processor_kwargs, response_format.
// Field shapes follow vLLM 0.11's vllm/entrypoints/openai/protocol.py (ChatCompletionRequest,
// ResponseFormat, JsonSchemaResponseFormat) and vllm/entrypoints/chat_utils.py (the video_url part).
import { z } from 'zod';
import { checkedChatBody, RequestRefusal } from '../request';

const TextPart = z.object({ type: z.literal('text'), text: z.string() });
const VideoPart = z.object({ type: z.literal('video_url'), video_url: z.object({ url: z.string() }).passthrough() });
const AudioPart = z.object({ type: z.literal('audio_url'), audio_url: z.object({ url: z.string() }).passthrough() });
const Part = z.discriminatedUnion('type', [TextPart, VideoPart, AudioPart]);
const Message = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.union([z.string(), z.array(Part)]),
});

const JsonSchemaFormat = z.object({
  name: z.string(),
  description: z.string().nullish(),
  schema: z.record(z.unknown()),
  strict: z.boolean().nullish(),
});
const ResponseFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({ type: z.literal('json_schema'), json_schema: JsonSchemaFormat }),
]);

const AvtimeBodySchema = z
  .object({
    model: z.string(),
    messages: z.array(Message).min(1),
    max_tokens: z.number().int().min(1).nullish(),
    max_completion_tokens: z.number().int().min(1).nullish(),
    temperature: z.number().min(0).nullish(),
    top_p: z.number().gt(0).max(1).nullish(),
    top_k: z.number().int().nullish(),
    repetition_penalty: z.number().gt(0).nullish(),
    seed: z.number().int().nullish(),
    stream: z.boolean().nullish(),
    mm_processor_kwargs: z.record(z.unknown()).nullish(),
    // The pinned release's per-request media loader kwargs (vllm/multimodal/media/video.py VideoMediaIO: "the
    // runtime API field media_io_kwargs") and token ids in the answer (ChatCompletionRequest.return_token_ids).
    media_io_kwargs: z.record(z.record(z.unknown())).nullish(),
    return_token_ids: z.boolean().nullish(),
    response_format: ResponseFormat.nullish(),
  })
  .passthrough();
export type AvtimeBody = z.infer<typeof AvtimeBodySchema>;

export interface ParsedAvtimeChat {
  body: AvtimeBody;
  videoUrls: string[];
  audioUrls: string[];
  promptText: string;
  maxTokens: number | null;
  /** mm_processor_kwargs.use_audio_in_video (false when absent). */
  useAudioInVideo: boolean;
}

/** Schema, stream, model name and use_audio_in_video checks, like ../request.ts parseChatBody for the FP model. */
export function parseAvtimeBody(raw: unknown, servedModelName: string): ParsedAvtimeChat {
  const body = checkedChatBody(AvtimeBodySchema, raw, servedModelName);
  const uaiv = body.mm_processor_kwargs?.use_audio_in_video;
  if (uaiv !== undefined && typeof uaiv !== 'boolean') {
    // vLLM hands the value to the HF processor unchecked; the stand-in refuses a non-boolean so a
    // protocol bug shows here instead of as a silently different preprocessing.
    throw new RequestRefusal(400, `stand-in vLLM: mm_processor_kwargs.use_audio_in_video must be a boolean, got ${JSON.stringify(uaiv)}`);
  }
  const videoUrls: string[] = [];
  const audioUrls: string[] = [];
  const texts: string[] = [];
  for (const m of body.messages) {
    if (typeof m.content === 'string') texts.push(m.content);
    else
      for (const p of m.content) {
        if (p.type === 'video_url') videoUrls.push(p.video_url.url);
        else if (p.type === 'audio_url') audioUrls.push(p.audio_url.url);
        else texts.push(p.text);
      }
  }
  return {
    body,
    videoUrls,
    audioUrls,
    promptText: texts.join('\n'),
    maxTokens: body.max_completion_tokens ?? body.max_tokens ?? null,
    useAudioInVideo: uaiv === true,
  };
}
