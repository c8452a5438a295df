// What a run is asked to do: the `run` verb builds it from flags + environment knobs, `--detach`
// hands it to the worker as JSON, and the extension can build it directly. Knobs change speed only.
import { z } from 'zod';
import { DEFAULT_FAIL_FAST } from '../../../runner/failFast';
import { shardSpecSchema } from '../shard/shard';

/** --fail-down's default: seconds every --endpoints server may stay unreachable before the run stops. */
export const FAIL_DOWN_S = 120;

export const runOptionsSchema = z.object({
  package: z.string().min(1),
  pilot: z.boolean().default(false),
  benchmarks: z.array(z.string()).optional(),
  conditions: z.array(z.string()).optional(),
  /** Servers already running (vLLM's base URL, e.g. http://127.0.0.1:8011); none = launch our own. */
  endpoints: z.array(z.string().url()).optional(),
  /**
   * How --endpoints servers get the frames: `data` (default: base64 in the request, they may be on other hosts)
   * or `file` (file:// URLs into the frame store: for servers on this host started with
   * --allowed-local-media-path covering it; the pre-flight stops the run if they refuse). Launched servers: file.
   */
  endpointFrames: z.enum(['data', 'file']).default('data'),
  /** GPUs to launch servers on (default: all that nvidia-smi lists, 1 without nvidia-smi). */
  ngpu: z.number().int().positive().optional(),
  /**
   * Requests in flight per server (seed WORKERS, default 6). Launched servers whose GPU memory is known take up to
   * max(WORKERS, MAX_SEQS) within their KV cache's tokens instead (kvBudget.ts fpServerSlot).
   */
  workers: z.number().int().positive().default(6),
  maxSeqs: z.number().int().positive().default(32),
  gpuUtil: z.number().gt(0).lte(1).default(0.85),
  vllmBin: z.string().default('vllm'),
  /** Videos prepared ahead of the servers (default: 2 per server slot group). */
  prefetch: z.number().int().positive().optional(),
  /** Port of the first launched server (SPEC: 8011; GPU i gets basePort + i). */
  basePort: z.number().int().min(1).max(65535).default(8011),
  /** Parallel video decodes (default: defaultPoolSize: cores − 1, at least 1, capped at max(4, ⌈cores / 4⌉)). */
  decodeWorkers: z.number().int().positive().optional(),
  /** Where frames are made (issue 34, frames/gpu/framesOn.ts): cpu (default), gpu where the host has the GPU path, auto. */
  framesOn: z.enum(['cpu', 'gpu', 'auto']).default('cpu'),
  /**
   * Fail-fast (failFast.ts; 0 turns a rule off): stop when K requests in a row on one server fail the
   * same way, when most of the first N requests fail, or when the first M videos all fail to decode.
   */
  failSameInARow: z.number().int().min(0).default(DEFAULT_FAIL_FAST.sameInARow),
  failFirstRequests: z.number().int().min(0).default(DEFAULT_FAIL_FAST.firstRequests),
  failFirstVideos: z.number().int().min(0).default(DEFAULT_FAIL_FAST.firstPrepared),
  /**
   * --endpoints only (serverHealth.ts's unreachable rule; 0 = off): stop when every given server has been unreachable
   * (connection refused or reset, or /health down) this many seconds with no answer since. Nothing of ours restarts
   * them; the run resumes once they are back. Launched servers are restarted by the launcher instead.
   */
  failDownS: z.number().int().min(0).default(FAIL_DOWN_S),
  /** `--shard K/N`: only the items whose video is in part K of N (shard/shard.ts); none = all. */
  shard: shardSpecSchema.optional(),
});
export type RunOptions = z.infer<typeof runOptionsSchema>;
export type RunOptionsInput = z.input<typeof runOptionsSchema>;
