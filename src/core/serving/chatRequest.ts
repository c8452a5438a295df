// An image chat-completions body: images in the given order as image_url parts, then the prompt text,
// with the caller's decoding (Frames × Pixels passes SPEC §3's: protocols/fp/serving/fpServing.ts).
//
// A part's `uuid` (issue 34), as read at vLLM's v0.11.0 tag (f71952c1c; docs/VLLM-PINS.md, "FP's per-image uuid"): the chat
// parser (vllm/entrypoints/chat_utils.py) takes it from an image part, and vllm/multimodal/processing.py
// `_hash_mm_items` uses it in place of the item's content hash (blake3 over the decoded pixels on the API thread),
// as the processor cache's and the prefix cache's key. So it must name the bytes exactly: ours is a digest of the
// JPEG's bytes (contentUuid), never a frame's (video, index, size), whose bytes differ between the CPU and the GPU
// frame paths. The URL is always sent too: 0.11.0 still fetches and decodes every image with a URL before any cache
// lookup (MediaConnector), and a uuid-only part is served only from the processor cache, a 400 on a miss.
import { createHash } from 'node:crypto';

export type FrameRef = ({ jpeg: Buffer } | { fileUrl: string }) & { uuid?: string };

export type ImagePart = { type: 'image_url'; image_url: { url: string }; uuid?: string };

export interface ChatRequestBody {
  model: string;
  messages: [{ role: 'user'; content: Array<ImagePart | { type: 'text'; text: string }> }];
  temperature: number;
  max_tokens: number;
}

export function frameUrl(f: FrameRef): string {
  if ('jpeg' in f) return `data:image/jpeg;base64,${f.jpeg.toString('base64')}`;
  if (!f.fileUrl.startsWith('file://')) throw new Error(`frame URL must be a file:// URL, got '${f.fileUrl.slice(0, 40)}'`);
  return f.fileUrl;
}

/** A uuid that names these exact bytes: 128 bits of their SHA-256. */
export function contentUuid(bytes: Buffer): string {
  return uuidOfSha256(createHash('sha256').update(bytes).digest('hex'));
}

/** contentUuid from the bytes' sha256 (hex) when it is known already (the frame store checks each frame's). */
export function uuidOfSha256(sha256Hex: string): string {
  return `sha256-${sha256Hex.slice(0, 32)}`;
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
          ...input.images.map((f): ImagePart =>
            f.uuid ? { type: 'image_url', image_url: { url: frameUrl(f) }, uuid: f.uuid } : { type: 'image_url', image_url: { url: frameUrl(f) } },
          ),
          { type: 'text' as const, text: input.promptText },
        ],
      },
    ],
    temperature: input.decoding.temperature,
    max_tokens: input.decoding.maxTokens,
  };
}
