// Can a GPU hold 65,536 tokens of context for Qwen3-VL-8B (SPEC §5: the run stops rather than
// lower it)? An estimate, stated with its arithmetic; vLLM's own start-up check is the authority.
//   KV cache per token = 2 (K and V) × 36 layers × 8 KV heads × 128 head_dim × 2 bytes (bf16)
//                      = 147,456 B  (Qwen3-VL-8B-Instruct config.json, text_config)
//   one 65,536-token sequence = 65,536 × 147,456 B = 9,663,676,416 B ≈ 9.66 GB
//   KV budget per GPU = memory.total × GPU_UTIL − weights (16.4 GB, seed §2) − reserve (2 GB:
//   activations, CUDA graphs, the vision encoder's profiling; an assumption)
import type { Gpu } from '../../../doctor/gpus';
import type { DoctorLine } from '../../../doctor/schema';
import { MAX_MODEL_LEN } from '../rules';

export const QWEN3_VL_8B = { layers: 36, kvHeads: 8, headDim: 128, bytesPerValue: 2 } as const;
export const KV_BYTES_PER_TOKEN = 2 * QWEN3_VL_8B.layers * QWEN3_VL_8B.kvHeads * QWEN3_VL_8B.headDim * QWEN3_VL_8B.bytesPerValue;
export const WEIGHTS_BYTES = 16.4e9;
export const RESERVE_BYTES = 2e9;

export interface ContextFit {
  gpu: Gpu;
  usableBytes: number;
  kvBudgetBytes: number;
  sequenceBytes: number;
  /** How many 65,536-token sequences the KV cache holds at once. */
  fullContextSequences: number;
}

export function contextFit(gpu: Gpu, gpuUtil: number, maxModelLen = MAX_MODEL_LEN): ContextFit {
  const usableBytes = gpu.memoryMiB * 1024 * 1024 * gpuUtil;
  const kvBudgetBytes = usableBytes - WEIGHTS_BYTES - RESERVE_BYTES;
  const sequenceBytes = maxModelLen * KV_BYTES_PER_TOKEN;
  return { gpu, usableBytes, kvBudgetBytes, sequenceBytes, fullContextSequences: Math.max(0, kvBudgetBytes) / sequenceBytes };
}

const gb = (b: number) => `${(b / 1e9).toFixed(2)} GB`;

export function checkContext(gpus: Gpu[], gpuUtil: number): DoctorLine {
  const base = { id: 'context', title: `${MAX_MODEL_LEN} tokens of context` };
  if (!gpus.length) return { ...base, status: 'fail', detail: 'no GPU to estimate on', action: 'see the GPUs line' };
  // The smallest GPU decides: every server must hold the full context.
  const smallest = gpus.reduce((a, b) => (b.memoryMiB < a.memoryMiB ? b : a));
  const f = contextFit(smallest, gpuUtil);
  const arithmetic =
    `KV cache 2·36 layers·8 KV heads·128 head_dim·2 B = ${KV_BYTES_PER_TOKEN.toLocaleString('en-US')} B/token; ` +
    `${MAX_MODEL_LEN} tokens = ${gb(f.sequenceBytes)}. ` +
    `${smallest.name}: ${smallest.memoryMiB} MiB × GPU_UTIL ${gpuUtil} = ${gb(f.usableBytes)} ` +
    `− weights ${gb(WEIGHTS_BYTES)} − reserve ${gb(RESERVE_BYTES)} = ${gb(f.kvBudgetBytes)} for KV ` +
    `= ${f.fullContextSequences.toFixed(2)} full-length sequence(s)`;
  if (f.fullContextSequences < 1) {
    return {
      ...base,
      status: 'fail',
      detail: `does not fit (estimate): ${arithmetic}`,
      action:
        `raise GPU_UTIL (e.g. 0.95) or use larger GPUs; never lower --max-model-len (the fps ladders would change). ` +
        `The launcher stops the run if vLLM refuses at start.`,
    };
  }
  if (f.fullContextSequences < 2) {
    return {
      ...base,
      status: 'warn',
      detail: `tight (estimate): ${arithmetic}`,
      action: `set MAX_SEQS=8 (seed §2, 32 GB cards) and consider GPU_UTIL=0.9–0.95 for headroom; vLLM's start-up check decides`,
    };
  }
  return { ...base, status: 'ok', detail: `fits (estimate): ${arithmetic}`, action: null };
}
