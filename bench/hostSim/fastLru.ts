// The processor cache's LRU (src/standins/vllm/cost/processorCache.ts ProcessorCache: by bytes, the least recently
// used out first, an item larger than the whole cache not kept) for integer keys, with the recency list in arrays
// so a hit moves a link instead of deleting and re-adding a Map entry — the bench does ~25 million look-ups a run.
// Same behaviour, checked against ProcessorCache in test/standins/vllm/cost/frontEndFast.test.ts.
import type { CacheStats } from '../../src/standins/vllm/cost/processorCache';

export class FastLru {
  private readonly slot = new Map<number, number>();
  private readonly keys: number[] = [];
  private readonly sizes: number[] = [];
  private readonly prev: number[] = [];
  private readonly next: number[] = [];
  private readonly free: number[] = [];
  /** Most and least recently used slots (-1: empty). */
  private head = -1;
  private tail = -1;
  private used = 0;
  readonly stats: CacheStats = { queries: 0, hits: 0, evictions: 0 };

  constructor(readonly capacityBytes: number) {}

  get usedBytes(): number {
    return this.used;
  }

  get size(): number {
    return this.slot.size;
  }

  private unlink(i: number): void {
    const p = this.prev[i];
    const n = this.next[i];
    if (p >= 0) this.next[p] = n;
    else this.head = n;
    if (n >= 0) this.prev[n] = p;
    else this.tail = p;
  }

  private pushFront(i: number): void {
    this.prev[i] = -1;
    this.next[i] = this.head;
    if (this.head >= 0) this.prev[this.head] = i;
    this.head = i;
    if (this.tail < 0) this.tail = i;
  }

  lookup(key: number): boolean {
    this.stats.queries++;
    const i = this.slot.get(key);
    if (i === undefined) return false;
    if (i !== this.head) {
      this.unlink(i);
      this.pushFront(i);
    }
    this.stats.hits++;
    return true;
  }

  private remove(i: number): void {
    this.unlink(i);
    this.slot.delete(this.keys[i]);
    this.used -= this.sizes[i];
    this.free.push(i);
  }

  insert(key: number, bytes: number): void {
    if (bytes > this.capacityBytes) return;
    const old = this.slot.get(key);
    if (old !== undefined) this.remove(old);
    while (this.tail >= 0 && this.used + bytes > this.capacityBytes) {
      this.remove(this.tail);
      this.stats.evictions++;
    }
    const i = this.free.length ? this.free.pop()! : this.keys.length;
    this.keys[i] = key;
    this.sizes[i] = bytes;
    this.slot.set(key, i);
    this.used += bytes;
    this.pushFront(i);
  }
}
