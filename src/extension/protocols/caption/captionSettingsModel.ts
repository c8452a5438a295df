// The `fpsweep.caption.*` settings as data (no vscode: tested under plain mocha) and the `fpsweep avtime caption …`
// arguments "Start captioning" runs with: the videos root, then the servers (endpoints, or a model path with its GPU
// groups and TP), the model name, and --detach. The FP settings' extraEnv and vllmBin (VLLM_BIN) apply here as well.
import { z } from 'zod';

export const captionSettingsSchema = z.object({
  videosRoot: z.string().default(''),
  baseUrls: z.array(z.string().url()).default([]),
  modelPath: z.string().default(''),
  model: z.string().default(''),
  gpus: z.string().default(''),
  tp: z.number().int().positive().nullable().default(null),
});
export type CaptionSettings = z.infer<typeof captionSettingsSchema>;

/** Where the requests go: endpoints already serving, or a checkpoint the engine serves. */
export type CaptionServers = { baseUrls: string[] } | { modelPath: string };

/** The servers the settings name, or null when they name none (the command then asks). */
export function settingsServers(s: CaptionSettings): CaptionServers | null {
  if (s.baseUrls.length) return { baseUrls: s.baseUrls };
  if (s.modelPath.trim()) return { modelPath: s.modelPath.trim() };
  return null;
}

/** What the user typed when asked: `http(s)://…` URLs (comma separated) are endpoints, anything else a model path. */
export function parseServersAnswer(text: string): CaptionServers | { error: string } {
  const t = text.trim();
  if (!t) return { error: 'give the endpoints (http://host:port, comma separated) or the model path' };
  const parts = t.split(',').map((p) => p.trim());
  if (!parts.some((p) => /^https?:\/\//i.test(p))) return { modelPath: t };
  const bad = parts.find((p) => !z.string().url().safeParse(p).success || !/^https?:\/\//i.test(p));
  if (bad !== undefined) return { error: `'${bad}' is not an http(s) URL` };
  return { baseUrls: parts };
}

/** The CLI's verb for captioning (two words: the run type serves it under AVTime's verb). */
export const CAPTION_VERB = 'avtime caption';

/** `fpsweep avtime caption ROOT … --detach`: the arguments after the verb's two words. */
export function captionCliArgs(root: string, servers: CaptionServers, s: CaptionSettings): string[] {
  const args = [root];
  if ('baseUrls' in servers) args.push('--base-url', servers.baseUrls.join(','));
  else {
    args.push('--model-path', servers.modelPath);
    if (s.gpus.trim()) args.push('--gpus', s.gpus.trim());
    if (s.tp !== null) args.push('--tp', String(s.tp));
  }
  if (s.model.trim()) args.push('--model', s.model.trim());
  args.push('--detach');
  return args;
}

/** The caption backends "Start captioning" offers (issue 35): vLLM serving Qwen3-Omni, or Gemini's Files API. */
export type CaptionBackendChoice = 'vllm' | 'gemini';

export const BACKEND_PICKS: readonly { backend: CaptionBackendChoice; label: string; detail: string }[] = [
  { backend: 'vllm', label: 'vLLM (Qwen3-Omni)', detail: 'endpoints already serving, or a checkpoint the engine serves on this host' },
  {
    backend: 'gemini',
    label: 'Gemini (Files API)',
    detail: "the seed's fallback with no GPU: each clip's mp4 uploaded to Google; the key is asked once and kept in SecretStorage",
  },
];

/** Where the extension keeps the Gemini key (VS Code SecretStorage; never a setting, a file or a launch line). */
export const GEMINI_KEY_SECRET = 'fpsweep.geminiApiKey';
export const DEFAULT_GEMINI_MODEL = 'gemini-2.5-flash';

/** The Gemini model to offer: the `fpsweep.caption.model` setting when it names a Gemini model, else the default. */
export function geminiModelDefault(s: CaptionSettings): string {
  return /^(models\/)?gemini-/.test(s.model.trim()) ? s.model.trim() : DEFAULT_GEMINI_MODEL;
}

/** `fpsweep avtime caption ROOT --backend gemini --model M --detach`: the arguments after the verb's two words (no key). */
export function geminiCliArgs(root: string, model: string): string[] {
  return [root, '--backend', 'gemini', '--model', model.trim(), '--detach'];
}

/** The key reaches the CLI, and through it the detached worker, by the environment only. */
export const geminiKeyEnv = (key: string): Record<string, string> => ({ GEMINI_API_KEY: key });
