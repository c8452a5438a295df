// vLLM's processor cache against the plan (issue 17). Each server caches processed images in an LRU of
// `--mm-processor-cache-gb` (the launcher sizes it from the host: serving/frontEndSizing.ts). A server works on a
// few videos at once — the scheduler keeps MIN_LEADERS_IN_FLIGHT (4) groups' first requests in flight, from as
// many videos as it takes — and a video's requests repeat its images (conditions share frames, a condition's
// items share all of them). If the images of the videos open on a server do not fit, an LRU under a cyclic
// pattern misses every time: each repeat runs the HF processor again on the API thread, one thread a server.
// The working set taken here: the processor-cache bytes of the plan's 4 costliest videos (each distinct image once).
//
// Bytes of one image in the cache (vllm/multimodal/cache.py sizes items by their tensors' nbytes; the HF
// processor's float outputs are cast to the model dtype, bf16, in vllm/inputs/registry.py call_hf_processor):
// Qwen3-VL's pixel_values, one row of 3 × 2 × 16 × 16 = 1536 values per 16-pixel patch of the smart-resized image,
// 2 bytes each, plus image_grid_thw (3 int64). The stand-in's cost model counts the same.
import type { DoctorLine } from '../../../doctor/schema';
import { qwenResizedDims } from '../rules/qwenTokens';
import { processorCacheGb } from '../../../serving/frontEndSizing';
import { formatBytes } from '../prepare/progressMeter';
import { OPEN_VIDEOS_PER_SERVER } from '../sweep/kvBudget';

const OPEN_VIDEOS = OPEN_VIDEOS_PER_SERVER;
const GIB = 1024 ** 3;

export function processorCacheItemBytes(width: number, height: number): number {
  const d = qwenResizedDims(width, height);
  return (d.width / 16) * (d.height / 16) * 1536 * 2 + 3 * 8;
}

export function checkProcessorCache(largestVideosCacheBytes: readonly number[], servers: number, ramBytes: number): DoctorLine {
  const base = { id: 'processor_cache', title: "vLLM's processor cache against the plan" };
  const gb = processorCacheGb(ramBytes, Math.max(1, servers));
  const cache = gb * GIB;
  const need = largestVideosCacheBytes.slice(0, OPEN_VIDEOS).reduce((a, b) => a + b, 0);
  const detail =
    `--mm-processor-cache-gb ${gb} a server (a quarter of ${formatBytes(ramBytes)} RAM over ${servers} server(s), twice each); ` +
    `the ${OPEN_VIDEOS} costliest videos' distinct images take ${formatBytes(need)} processed`;
  if (need > cache) {
    return {
      ...base,
      status: 'warn',
      detail: `${detail}: a server working on such videos processes their repeated images again (API-thread time; results unchanged)`,
      action: `more host RAM (about ${Math.ceil((need / GIB) * 2 * Math.max(1, servers) * 4)} GiB for this plan) or fewer servers on this host`,
    };
  }
  return { ...base, status: 'ok', detail, action: null };
}
