// A model of vLLM's automatic prefix caching for our requests: the prompt is
// [images in order][text], each image's tokens are cached by its content, and a request reuses the
// longest chain of leading segments seen before. Like vLLM, hits count whole 16-token blocks and
// the last prompt token is always recomputed; capacity is bounded and evicted least-recently-used.
import { createHash } from 'node:crypto';

export const BLOCK_TOKENS = 16;

export interface Segment {
  /** Content hash of the segment (image bytes, or the text). */
  key: string;
  tokens: number;
}

export interface CacheResult {
  /** Prompt tokens served from the cache (whole blocks). */
  hitTokens: number;
  /** Leading segments that were found. */
  hitSegments: number;
}

export class PrefixCache {
  private readonly entries = new Map<string, number>(); // chain hash → tokens of its last segment
  private total = 0;

  constructor(private readonly capacityTokens: number) {}

  /** Looks the prompt up, then stores all its prefixes (the request is now computed). */
  lookupAndInsert(segments: readonly Segment[], promptTokens: number): CacheResult {
    const chain = chainHashes(segments);
    let hitSegments = 0;
    let cached = 0;
    for (let i = 0; i < chain.length; i++) {
      if (!this.entries.has(chain[i])) break; // vLLM stops at the first missing block too
      hitSegments++;
      cached += segments[i].tokens;
    }
    for (let i = 0; i < chain.length; i++) this.touch(chain[i], segments[i].tokens);
    const usable = Math.min(cached, Math.max(0, promptTokens - 1));
    return { hitTokens: Math.floor(usable / BLOCK_TOKENS) * BLOCK_TOKENS, hitSegments };
  }

  get sizeTokens(): number {
    return this.total;
  }

  private touch(key: string, tokens: number): void {
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key); // re-insert: most recently used goes last
      this.total -= old;
    }
    if (tokens > this.capacityTokens) return;
    this.entries.set(key, tokens);
    this.total += tokens;
    for (const [k, t] of this.entries) {
      if (this.total <= this.capacityTokens) break;
      this.entries.delete(k);
      this.total -= t;
    }
  }
}

function chainHashes(segments: readonly Segment[]): string[] {
  const out: string[] = [];
  let prev = '';
  for (const s of segments) {
    prev = createHash('sha1').update(prev).update('\0').update(s.key).digest('hex');
    out.push(prev);
  }
  return out;
}

export function contentKey(data: Buffer | string): string {
  return createHash('sha1').update(data).digest('hex');
}
