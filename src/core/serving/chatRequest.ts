// An image chat-completions body: images in the given order as image_url parts, then the prompt text,
// with the caller's decoding (Frames × Pixels passes SPEC §3's: protocols/fp/serving/fpServing.ts).

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

/** The decoding parameters a protocol fixes for its requests. */
export interface Decoding {
  temperature: number;
  maxTokens: number;
}

export function buildChatRequest(input: { model: string; promptText: string; images: readonly FrameRef[]; decoding: Decoding }): ChatRequestBody {
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
    temperature: input.decoding.temperature,
    max_tokens: input.decoding.maxTokens,
  };
}
