// MAX_SEQS (SPEC §5: --max-num-seqs, default 32) against the KV cache the GPU has (context.ts's
// arithmetic: 147,456 B per token for Qwen3-VL-8B, from its config.json text_config: 36 layers, 8 KV
// heads, head_dim 128, bf16). vLLM admits MAX_SEQS requests at once and allocates their KV blocks as
// their prefill goes; when the cache runs out it preempts a running request and recomputes it later.
// So with fewer than MAX_SEQS full-length (65,536-token) sequences fitting, a batch of long requests
// (LVBench / TimeScope at fps1–2, ~50–57k tokens) thrashes: work is thrown away and the pilot's
// timing misleads the extrapolation. The sweep sends at most WORKERS requests to a server at once
// (the scheduler's capacity), so min(MAX_SEQS, WORKERS) is what must fit.
import type { Gpu } from '../../../doctor/gpus';
import type { DoctorLine } from '../../../doctor/schema';
import { contextFit } from './context';
import { MAX_MODEL_LEN } from '../rules';

export const DEFAULT_MAX_SEQS = 32;
/** The seed's WORKERS default: concurrent requests per server. */
export const DEFAULT_WORKERS = 6;

export function checkMaxSeqs(gpus: Gpu[], gpuUtil: number, maxSeqsText: string | undefined, workersText?: string): DoctorLine {
  const base = { id: 'max_seqs', title: 'MAX_SEQS against GPU memory' };
  const maxSeqs = maxSeqsText === undefined || maxSeqsText === '' ? DEFAULT_MAX_SEQS : Number(maxSeqsText);
  if (!Number.isInteger(maxSeqs) || maxSeqs < 1) {
    return {
      ...base,
      status: 'fail',
      detail: `MAX_SEQS=${maxSeqsText} is not a positive integer`,
      action: `set MAX_SEQS to a whole number ≥ 1 (default ${DEFAULT_MAX_SEQS})`,
    };
  }
  const workers = workersText === undefined || workersText === '' || !(Number(workersText) >= 1) ? DEFAULT_WORKERS : Math.floor(Number(workersText));
  const atOnce = Math.min(maxSeqs, workers);
  if (!gpus.length) return { ...base, status: 'warn', detail: `MAX_SEQS=${maxSeqs}; no GPU to compare with`, action: 'see the GPUs line' };
  const smallest = gpus.reduce((a, b) => (b.memoryMiB < a.memoryMiB ? b : a));
  const f = contextFit(smallest, gpuUtil);
  const fit = Math.floor(f.fullContextSequences);
  const detail =
    `MAX_SEQS=${maxSeqs}, WORKERS=${workers} (at most ${atOnce} at once); ` +
    `${smallest.name} holds KV for ${fit} full-length sequence(s) of ${MAX_MODEL_LEN} tokens ` +
    `(${(f.kvBudgetBytes / 1e9).toFixed(1)} GB ÷ ${(f.sequenceBytes / 1e9).toFixed(2)} GB, estimate at GPU_UTIL ${gpuUtil})`;
  if (fit < atOnce) {
    return {
      ...base,
      status: 'warn',
      detail: `${detail}: ${atOnce} long requests at once cannot all fit, so vLLM preempts and recomputes some`,
      action:
        fit >= 1
          ? `fine for short requests; for the long-video conditions consider MAX_SEQS=${fit} (or a higher GPU_UTIL), and watch the server logs for preemption`
          : 'not even one full-length sequence fits: see the context line',
    };
  }
  return { ...base, status: 'ok', detail, action: null };
}
