// Deterministic choices from a request: a sha256 seed drives the engine's small PRNG (mulberry32), so the
// same video + prompt gives the same answer on any server and at any time.
import { createHash } from 'node:crypto';
import { SeededRandom } from '../../../core/seededRandom';

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number;
  pick<T>(xs: readonly T[]): T;
}

export function seedOf(...parts: string[]): number {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest().readUInt32BE(0);
}

/** The share of requests a knob picks: stable per request, independent of the answer's own draws. */
export function hashFraction(knob: string, ...parts: string[]): number {
  return seedOf(knob, ...parts) / 2 ** 32;
}

/** The engine's mulberry32 (core/seededRandom.ts), seeded from the request, with inclusive integer ranges. */
export function rngFrom(seed: number): Rng {
  const r = new SeededRandom(seed);
  return {
    next: () => r.next(),
    int: (lo, hi) => lo + r.int(hi - lo + 1),
    pick: (xs) => r.pick(xs),
  };
}

/** Qwen-like token count for text: each word, each punctuation mark, each newline (≈ chars/4 for prose). */
export function textTokens(text: string): string[] {
  return text.match(/\n|[A-Za-z0-9]+|[^\sA-Za-z0-9]/g) ?? [];
}

/** The first `n` tokens of `text`, keeping the text between them (an answer cut at max_tokens). */
export function cutAtTokens(text: string, n: number): string {
  const re = /\n|[A-Za-z0-9]+|[^\sA-Za-z0-9]/g;
  let end = 0;
  for (let k = 0; k < n; k++) {
    const m = re.exec(text);
    if (!m) return text;
    end = m.index + m[0].length;
  }
  return text.slice(0, end);
}
