// The one chat-completions body of the protocol (SPEC §3): frames in time order as image_url parts,
// then the prompt text (built by protocol/prompt.ts only), temperature 0, max_tokens 128.
import { MAX_TOKENS, TEMPERATURE } from '../protocols/fp/rules/constants';

export type FrameRef = { jpeg: Buffer } | { fileUrl: string };

export interface ChatRequestBody {
  model: string;
  messages: [{ role: 'user'; content: Array<{ type: 'image_url'; image_url: { url: string } } | { type: 'text'; text: string }> }];
  temperature: number;
  max_tokens: number;
}

export function frameUrl(f: FrameRef): string {
  if ('jpeg' in f) return `data:image/jpeg;base64,${f.jpeg.toString('base64')}`;
  if (!f.fileUrl.startsWith('file://')) throw new Error(`frame URL must be a file:// URL, got '${f.fileUrl.slice(0, 40)}'`);
  return f.fileUrl;
}

export function buildChatRequest(input: { model: string; promptText: string; images: readonly FrameRef[] }): ChatRequestBody {
  return {
    model: input.model,
    messages: [
      {
        role: 'user',
        content: [
          ...input.images.map((f) => ({ type: 'image_url' as const, image_url: { url: frameUrl(f) } })),
          { type: 'text' as const, text: input.promptText },
        ],
      },
    ],
    temperature: TEMPERATURE,
    max_tokens: MAX_TOKENS,
  };
}
