// `--shard K/N` as the CLI reads it (1-based, as Playwright and Jest): the spec, its text and its schema. What a
// shard holds is each run type's own rule (Frames × Pixels: src/core/protocols/fp/shard/shard.ts; captioning and the
// cut: src/core/clips/shard.ts); the flag is the CLI contract's, so every verb parses it the same way.
import { z } from 'zod';
import { UsageError } from '../errors';

export const shardSpecSchema = z
  .object({
    index: z.number().int().positive(),
    count: z.number().int().positive(),
  })
  .refine((s) => s.index <= s.count, { message: 'shard K/N needs 1 ≤ K ≤ N' });
export type ShardSpec = z.infer<typeof shardSpecSchema>;

/** "K/N" → {index: K, count: N}; anything else is a UsageError saying what is expected. */
export function parseShard(text: string, what = '--shard'): ShardSpec {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const k = m ? Number(m[1]) : NaN;
  const n = m ? Number(m[2]) : NaN;
  if (!m || !Number.isSafeInteger(k) || !Number.isSafeInteger(n) || k < 1 || n < 1 || k > n) {
    throw new UsageError(`${what} must be K/N with whole numbers 1 ≤ K ≤ N (e.g. 1/2 on the first of two hosts), got '${text}'`);
  }
  return { index: k, count: n };
}

export function formatShard(s: ShardSpec): string {
  return `${s.index}/${s.count}`;
}
