// Which rank captions (or cuts) a video: blake2b-256 of its stem's UTF-8, the first 8 bytes read big-endian, mod N
// (SPEC-AVTIME-DATA §2, [decided]). Stable for a fixed N on any machine; ranks are 0-based here, K/N on the CLI is 1-based.
import { blake2b } from '@noble/hashes/blake2b';

export function shardRankOf(stem: string, shards: number): number {
  if (!Number.isInteger(shards) || shards < 1) throw new RangeError(`shards must be a positive integer, got ${shards}`);
  const digest = blake2b(Buffer.from(stem, 'utf8'), { dkLen: 32 });
  return Number(Buffer.from(digest.buffer, digest.byteOffset, 8).readBigUInt64BE(0) % BigInt(shards));
}

/** A rank of a sharded run, 1-based as on the CLI (`--shard K/N`). */
export interface RankShard {
  index: number;
  count: number;
}
