// Stand-in knobs from the environment (documented in ./README.md). A knob may be scoped to one GPU
// with a `_<i>` suffix matched against CUDA_VISIBLE_DEVICES, e.g. FPSWEEP_STANDIN_FAULTS_1 for GPU 1,
// so a test can crash or slow one server of several that share the launcher's environment.
import { z } from 'zod';

export const LatencySchema = z.object({
  /** Fixed seconds per request (queueing into the batch, decoding the short answer). */
  a: z.number().min(0).default(0.01),
  /** Seconds per uncached prompt token (prefill). */
  b: z.number().min(0).default(0.000001),
  /**
   * 1 = prefill work is shared by the running requests (processor sharing: k running requests each
   * progress at 1/k of the rate, like one GPU), 0 = every request runs at full speed in parallel,
   * 2 = one GPU in vLLM's order: prefills one after another in admission order (chunked prefill).
   */
  shared: z.number().int().min(0).max(2).default(1),
  /**
   * 1 = vLLM 0.11's cost model (./cost/): the API thread's front-end time and the engine's steps (token budget,
   * max-num-seqs, calibrated GPU seconds) are waited for; `a`, `b` and `shared` are then unused. 0 = the a + b model
   * above (the front end is still accounted in /metrics, without delay).
   */
  model: z.number().int().min(0).max(1).default(0),
  /** Model seconds per wall second under model=1 (100 = a hundred times faster than the modelled host). */
  speed: z.number().positive().default(1),
  /** GPU seconds per H200-transformers second under model=1 (cost/calibration.ts B200_VLLM_SCALE = 0.3). */
  gpuScale: z.number().positive().default(0.3),
});
export type Latency = z.infer<typeof LatencySchema>;

export const FaultsSchema = z.object({
  /** Answer 503 to every Nth chat request (0 = never). */
  status503Every: z.number().int().min(0).default(0),
  /** Answer 400 to every Nth chat request (1 = to every one; 0 = never): a server that refuses what we send. */
  status400Every: z.number().int().min(0).default(0),
  /** 1 = refuse every file:// image as outside --allowed-local-media-path (what a symlinked package meets). */
  refuseFileUrls: z.number().int().min(0).max(1).default(0),
  /** status400Every and refuseFileUrls apply from chat request N on (1 = all; 2 = a server that breaks after the pre-flight). */
  faultsFrom: z.number().int().min(1).default(1),
  /** Exit abruptly when chat request N+1 arrives (0 = never); in-flight requests are cut. */
  crashAfter: z.number().int().min(0).default(0),
  /** 1 = the crash prints a CUDA out-of-memory traceback, 0 = a plain engine failure. */
  crashOom: z.number().int().min(0).max(1).default(1),
  /** 1 = refuse --max-model-len at start (vLLM's KV-cache error on stderr, exit 1). */
  refuseContext: z.number().int().min(0).max(1).default(0),
  /** Refuse at start when --max-model-len exceeds this many KV-cache tokens (0 = unlimited). */
  kvCacheTokens: z.number().int().min(0).default(0),
  /** /health answers 503 for this long after the port opens (model loading). */
  startupDelayMs: z.number().int().min(0).default(0),
  /** Prefix-cache capacity in tokens (LRU); ~800k is a B200 at 0.85 for Qwen3-VL-8B. */
  cacheTokens: z.number().int().min(0).default(800_000),
});
export type Faults = z.infer<typeof FaultsSchema>;

export interface StandinEnv {
  latency: Latency;
  faults: Faults;
  /** When set, a crash happens only if this file does not exist yet (it is created at the crash). */
  crashOnceFile: string | null;
  /** While this file exists, chat requests are held before they are answered (tests pause a run). */
  holdFile: string | null;
  /** JSONL file that gets one summary line per chat request (tests read back what arrived). */
  inspectFile: string | null;
  /** Directory that gets every received image as <sha1>.jpg (tests read the pixels back). */
  inspectImagesDir: string | null;
}

/** "a=0.05,b=0.00002" → {a: 0.05, b: 0.00002}; a malformed pair is an error, never ignored. */
export function parseKv(raw: string, what: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z0-9]+)=(.+)$/.exec(part);
    const n = m ? Number(m[2]) : NaN;
    if (!m || !Number.isFinite(n)) throw new Error(`${what}: expected key=number pairs separated by commas, got '${part}'`);
    out[m[1]] = n;
  }
  return out;
}

export function scoped(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const gpu = env.CUDA_VISIBLE_DEVICES;
  if (gpu !== undefined && /^\d+$/.test(gpu) && env[`${name}_${gpu}`] !== undefined) return env[`${name}_${gpu}`];
  return env[name];
}

export function readStandinEnv(env: NodeJS.ProcessEnv = process.env): StandinEnv {
  const lat = scoped(env, 'FPSWEEP_STANDIN_LATENCY') ?? '';
  const fau = scoped(env, 'FPSWEEP_STANDIN_FAULTS') ?? '';
  return {
    latency: LatencySchema.strict().parse(parseKv(lat, 'FPSWEEP_STANDIN_LATENCY')),
    faults: FaultsSchema.strict().parse(parseKv(fau, 'FPSWEEP_STANDIN_FAULTS')),
    crashOnceFile: scoped(env, 'FPSWEEP_STANDIN_CRASH_ONCE_FILE') || null,
    holdFile: env.FPSWEEP_STANDIN_HOLD_FILE || null,
    inspectFile: env.FPSWEEP_STANDIN_INSPECT || null,
    inspectImagesDir: env.FPSWEEP_STANDIN_INSPECT_IMAGES || null,
  };
}
