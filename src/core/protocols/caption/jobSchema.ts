// The caption run's worker job (`worker --protocol caption --job '<JSON>'`, and the foreground run): the CLI's
// flags resolved, checked here so a detached worker never runs a job the CLI would refuse.
import { z } from 'zod';

export const captionJobSchema = z.object({
  root: z.string(),
  /** 1-based rank K of N (`--shard K/N`); null: the whole root. */
  shard: z.object({ index: z.number().int().positive(), count: z.number().int().positive() }).nullable(),
  /** Exact `input_video` values to select (`--source-video`); empty: every tracked video. */
  sourceVideos: z.array(z.string()),
  /** Which backend captions (issue 35): vLLM (servers below) or Gemini (gemini below). */
  backend: z.enum(['vllm', 'gemini']).default('vllm'),
  /** The Gemini backend's settings; the key is never here (the worker reads it from its environment). */
  gemini: z
    .object({
      /** The API's base URL (the stand-in's); null: the SDK's default (or its GOOGLE_GEMINI_BASE_URL). */
      baseUrl: z.string().url().nullable(),
      /** At most this many generateContent requests a minute; null: no bound. */
      maxRpm: z.number().int().positive().nullable(),
      /** How long an uploaded file may stay PROCESSING before its clip fails (s), and the poll between looks (ms). */
      activeTimeoutS: z.number().positive(),
      pollMs: z.number().int().positive(),
    })
    .nullable()
    .default(null),
  /** Caption a root that another backend captioned before (the seed advises one backend per dataset). */
  allowMixed: z.boolean().default(false),
  /** With allowMixed: caption again the videos another backend finished (their captions_merged.json replaced);
   * without it those are kept as they are. */
  recaption: z.boolean().default(false),
  /** vLLM's servers; null for the Gemini backend. */
  servers: z
    .discriminatedUnion('mode', [
      z.object({ mode: z.literal('endpoints'), urls: z.array(z.string().url()).min(1) }),
      z.object({
        mode: z.literal('managed'),
        modelPath: z.string(),
        /** GPU groups, one server each (`--gpus "0,1;2,3"`); each group's size is the tensor parallelism. */
        gpuGroups: z.array(z.array(z.number().int().nonnegative()).min(1)).min(1),
        basePort: z.number().int().min(1024).max(65_000),
        vllmBin: z.string(),
        startTimeoutS: z.number().int().positive(),
      }),
    ])
    .nullable(),
  model: z.string().min(1),
  /** The prompt's text and where it came from (its version or --prompt-file). */
  prompt: z.object({ text: z.string().min(1), source: z.string() }),
  maxJobs: z.number().int().positive(),
  maxInflightClips: z.number().int().positive(),
  retries: z.number().int().nonnegative(),
  timeoutS: z.number().positive(),
  sampling: z.object({ fps: z.number().positive(), minFrames: z.number().int().positive(), maxFrames: z.number().int().positive() }),
  failFast: z.boolean(),
  /** The placeholder-count pre-flight on the first clip per server (return_token_ids). */
  preflight: z.boolean(),
  /** The client's first backoff before a retry (ms); tests shorten it. */
  retryBaseDelayMs: z.number().int().nonnegative().default(500),
  tickMs: z.number().int().min(50).max(5000).default(1000),
  /** --base-url only: every server unreachable this many seconds stops the run (runner/serverHealth.ts; 0 = off). */
  failDownS: z.number().int().min(0).default(120),
  /** The longest the run stays silent (ms): a progress line at least this often while clips are in flight. */
  progressMs: z.number().int().min(50).max(60_000).default(5000),
});
export type CaptionJob = z.infer<typeof captionJobSchema>;
