// The Gemini calls the caption backend makes, on Google's own SDK (@google/genai 2.32, the last line on Node 20; it
// talks to /v1beta): upload a clip from its path (the SDK reads it in 8 MiB chunks from disk: a 2 GB clip never sits
// in memory), read a file's state, delete it, and generateContent with the file and the prompt. The SDK retries
// nothing unless told (no retryOptions here): retries and waits are the backend's own (clipCaption.ts), from the
// error bodies (googleError.ts). The base URL is the stand-in's when given (`--gemini-base-url` or the SDK's own
// GOOGLE_GEMINI_BASE_URL), else Google's.
// Each call gets a signal of its own, tied to the run's for the call's length only: the SDK adds an abort listener to
// the signal it is given and, on a successful answer, leaves it there on purpose (its attempt signal "is deliberately
// not disposed" in apiCall), so the run's one signal would gather a listener per call and Node would warn
// (MaxListenersExceededWarning) after ten clips.
import { GoogleGenAI } from '@google/genai';
import * as net from 'node:net';

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

/** `fn` with a signal that aborts when `signal` does, unlinked from `signal` once `fn` has settled. */
export async function withCallSignal<T>(signal: AbortSignal | undefined, fn: (s: AbortSignal | undefined) => Promise<T>): Promise<T> {
  if (!signal) return fn(undefined);
  const call = new AbortController();
  const onAbort = () => call.abort(signal.reason);
  if (signal.aborted) call.abort(signal.reason);
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await fn(call.signal);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

export function geminiApi(apiKey: string, baseUrl: string | null): GeminiApi {
  const ai = new GoogleGenAI({ apiKey, ...(baseUrl ? { httpOptions: { baseUrl } } : {}) });
  return {
    async upload(path, name, displayName, signal) {
      const config = { name, displayName, mimeType: 'video/mp4' };
      return info(await withCallSignal(signal, (abortSignal) => ai.files.upload({ file: path, config: { ...config, abortSignal } })));
    },
    async get(name, signal) {
      return info(await withCallSignal(signal, (abortSignal) => ai.files.get({ name, config: { abortSignal } })));
    },
    async remove(name) {
      await ai.files.delete({ name });
    },
    async generate(model, file, prompt, signal) {
      return withCallSignal(signal, (abortSignal) =>
        ai.models.generateContent({
          model,
          contents: [{ role: 'user', parts: [{ fileData: { fileUri: file.uri, mimeType: file.mimeType } }, { text: prompt }] }],
          config: { abortSignal },
        }),
      );
    },
  };
}

/**
 * Whether anything answers at `url`'s host and port: a TCP connect, before the run validates and uploads anything, so
 * a wrong --gemini-base-url ends the run in a second instead of after the videos' checks and each clip's retries.
 * The system's code and words when the connection is refused or the host is unknown; null when it connects, or on any
 * other outcome (a timeout, a proxy's world): the calls themselves then decide.
 */
export function endpointRefusal(url: string, timeoutMs = 5000): Promise<{ code: string; message: string } | null> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return Promise.resolve(null);
  }
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (v: { code: string; message: string } | null) => {
      socket.destroy();
      resolve(v);
    };
    socket.setTimeout(timeoutMs, () => done(null));
    socket.once('connect', () => done(null));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done(err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' ? { code: err.code, message: err.message } : null),
    );
  });
}
