// The Gemini calls the caption backend makes, on Google's own SDK (@google/genai 2.32, the last line on Node 20; it
// talks to /v1beta): upload a clip from its path (the SDK reads it in 8 MiB chunks from disk: a 2 GB clip never sits
// in memory), read a file's state, delete it, and generateContent with the file and the prompt. The SDK retries
// nothing unless told (no retryOptions here): retries and waits are the backend's own (clipCaption.ts), from the
// error bodies (googleError.ts). The base URL is the stand-in's when given (`--gemini-base-url` or the SDK's own
// GOOGLE_GEMINI_BASE_URL), else Google's.
import { GoogleGenAI } from '@google/genai';

export interface GeminiFileInfo {
  name: string;
  uri: string;
  mimeType: string;
  state: string;
  /** Google's words when the state is FAILED. */
  error: string | null;
}

export interface GeminiApi {
  upload(path: string, name: string, displayName: string, signal?: AbortSignal): Promise<GeminiFileInfo>;
  get(name: string, signal?: AbortSignal): Promise<GeminiFileInfo>;
  remove(name: string): Promise<void>;
  generate(model: string, file: GeminiFileInfo, prompt: string, signal?: AbortSignal): Promise<unknown>;
}

interface SdkFile {
  name?: string;
  uri?: string;
  mimeType?: string;
  state?: string;
  error?: { message?: string; code?: number };
}

const info = (f: SdkFile): GeminiFileInfo => ({
  name: f.name ?? '',
  uri: f.uri ?? '',
  mimeType: f.mimeType ?? 'video/mp4',
  state: f.state ?? 'STATE_UNSPECIFIED',
  error: f.error ? (f.error.message ?? `code ${f.error.code}`) : null,
});

export function geminiApi(apiKey: string, baseUrl: string | null): GeminiApi {
  const ai = new GoogleGenAI({ apiKey, ...(baseUrl ? { httpOptions: { baseUrl } } : {}) });
  return {
    async upload(path, name, displayName, signal) {
      return info(await ai.files.upload({ file: path, config: { name, displayName, mimeType: 'video/mp4', abortSignal: signal } }));
    },
    async get(name, signal) {
      return info(await ai.files.get({ name, config: { abortSignal: signal } }));
    },
    async remove(name) {
      await ai.files.delete({ name });
    },
    async generate(model, file, prompt, signal) {
      return ai.models.generateContent({
        model,
        contents: [{ role: 'user', parts: [{ fileData: { fileUri: file.uri, mimeType: file.mimeType } }, { text: prompt }] }],
        config: { abortSignal: signal },
      });
    },
  };
}
