// The cost model's Processor.process_inputs (src/standins/vllm/cost/frontEnd.ts processInputs) for the bench's
// ~25 million sends a run: the same rules and the same calibration functions, with the per-size costs looked up
// once per dims instead of per image and without the per-image load list (the bench has it already). Not a second
// model: test/standins/vllm/cost/frontEndFast.test.ts checks it against processInputs on random request streams.
import { PER_ITEM_MS, REQUEST_MS, processorMs, hashMs } from '../../src/standins/vllm/cost/calibration';
import { qwen3vlItemBytes } from '../../src/standins/vllm/cost/processorCache';
import type { FrontEndImage } from '../../src/standins/vllm/cost/frontEnd';

export interface FastFrontEnd {
  threadS: number;
  /** The part of threadS in the HF processor (its torch threads hold that many cores meanwhile). */
  processS: number;
  hits: number;
  misses: number;
}

interface SizeCost {
  hashS: number;
  processS: number;
  bytes: number;
}

const bySize = new Map<number, SizeCost>();

function sizeCost(width: number, height: number, threads: number): SizeCost {
  const k = (threads * 65536 + width) * 65536 + height;
  let c = bySize.get(k);
  if (!c) {
    const px = width * height;
    c = { hashS: hashMs(px) / 1000, processS: processorMs(px, threads) / 1000, bytes: qwen3vlItemBytes(width, height) };
    bySize.set(k, c);
  }
  return c;
}

/** What processInputs asks of the cache: ProcessorCache, or FastLru for integer keys. */
export interface ItemCache<K> {
  lookup(key: K): boolean;
  insert(key: K, bytes: number): void;
}

export function processInputsFast<K>(images: readonly FrontEndImage[], cache: ItemCache<K> | null, processorThreads = 1): FastFrontEnd {
  let hashS = 0;
  let processS = 0;
  let hits = 0;
  let last: FrontEndImage | null = null;
  let c: SizeCost | null = null;
  for (const img of images) {
    if (!last || img.width !== last.width || img.height !== last.height) c = sizeCost(img.width, img.height, processorThreads);
    last = img;
    const key = (img.uuid ?? img.key) as unknown as K;
    if (!img.uuid) hashS += c!.hashS;
    if (cache?.lookup(key)) {
      hits++;
      continue;
    }
    processS += c!.processS;
    cache?.insert(key, c!.bytes);
  }
  return { threadS: REQUEST_MS / 1000 + (images.length * PER_ITEM_MS) / 1000 + hashS + processS, processS, hits, misses: images.length - hits };
}
