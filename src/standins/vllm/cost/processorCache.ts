/**
 * vLLM 0.11's multimodal processor cache, as a pure model: an LRU of items keyed by the item's hash, sized in
 * bytes by `--mm-processor-cache-gb` (GiB), each item counted at its tensors' real size.
 *
 * Exports: ProcessorCache (lookup / insert / stats), qwen3vlItemBytes(w, h), qwen3vlPatches(w, h),
 * cacheCapacityBytes(gb), DEFAULT_MM_PROCESSOR_CACHE_GB.
 *
 * Rules followed (vLLM 0.11):
 *  - vllm/multimodal/cache.py: `MultiModalCache.get_lru_cache(capacity_gb)` is an LRUCache of
 *    `GiB_bytes × capacity_gb` whose `getsizeof` sums each tensor leaf's `nbytes` (get_leaf_size); an item is
 *    looked up by its mm hash, and a hit refreshes its place (get_and_update).
 *  - vllm/config (MultiModalConfig.mm_processor_cache_gb): default 4 GiB; 0 disables the cache.
 *  - vllm/inputs/registry.py `InputProcessingContext.call_hf_processor`: floating outputs of the HF processor are
 *    cast to the model's dtype ("this emulates output.to(dtype=...)"), so Qwen3-VL's `pixel_values` are bf16 in
 *    the cache: patches × (3 channels × 2 temporal × 16 × 16 = 1536) × 2 bytes, plus `image_grid_thw` (3 int64).
 *    (Issue 17 assumed float32, 4 bytes: the cache holds twice the frames it thought.)
 *  - An item bigger than the whole cache is not kept (cachetools' LRUCache refuses it).
 */
import { qwenResizedDims } from '../../../core/protocols/fp/rules/qwenTokens';

export const DEFAULT_MM_PROCESSOR_CACHE_GB = 4;
const GIB = 1024 ** 3;
/** Qwen3-VL: patch 16, temporal patch 2, 3 channels → 1536 values per patch row of pixel_values. */
const VALUES_PER_PATCH = 3 * 2 * 16 * 16;
const BF16_BYTES = 2;
const GRID_THW_BYTES = 3 * 8;

export function cacheCapacityBytes(gb: number): number {
  return Math.floor(gb * GIB);
}

/** Vision patches (16×16) of one image after Qwen3-VL's smart resize (398×224 → 384×224 → 336). */
export function qwen3vlPatches(width: number, height: number): number {
  const d = qwenResizedDims(width, height);
  return (d.width / 16) * (d.height / 16);
}

/** Bytes one image item takes in the processor cache (398×224: 336 × 1536 × 2 + 24 = 1,032,216). */
export function qwen3vlItemBytes(width: number, height: number): number {
  return qwen3vlPatches(width, height) * VALUES_PER_PATCH * BF16_BYTES + GRID_THW_BYTES;
}

export interface CacheStats {
  /** Items looked up (vLLM 0.11's mm-cache "queries" unit: items). */
  queries: number;
  hits: number;
  evictions: number;
}

export class ProcessorCache {
  private readonly items = new Map<string, number>(); // key → bytes; Map order is recency (last = newest)
  private used = 0;
  readonly stats: CacheStats = { queries: 0, hits: 0, evictions: 0 };

  constructor(readonly capacityBytes: number) {
    if (!(capacityBytes >= 0)) throw new RangeError(`processor cache capacity must be ≥ 0 bytes, got ${capacityBytes}`);
  }

  static fromGb(gb: number): ProcessorCache {
    return new ProcessorCache(cacheCapacityBytes(gb));
  }

  get usedBytes(): number {
    return this.used;
  }

  get size(): number {
    return this.items.size;
  }

  /** True (and the item becomes the most recently used) when `key` is cached; counts a query. */
  lookup(key: string): boolean {
    this.stats.queries++;
    const bytes = this.items.get(key);
    if (bytes === undefined) return false;
    this.items.delete(key);
    this.items.set(key, bytes);
    this.stats.hits++;
    return true;
  }

  /** Stores an item just processed, evicting the least recently used until it fits. */
  insert(key: string, bytes: number): void {
    if (bytes > this.capacityBytes) return;
    const old = this.items.get(key);
    if (old !== undefined) {
      this.items.delete(key);
      this.used -= old;
    }
    for (const [k, b] of this.items) {
      if (this.used + bytes <= this.capacityBytes) break;
      this.items.delete(k);
      this.used -= b;
      this.stats.evictions++;
    }
    this.items.set(key, bytes);
    this.used += bytes;
  }
}
