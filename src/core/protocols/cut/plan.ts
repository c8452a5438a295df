// What a cut run does with each source (SPEC-AVTIME-DATA §2): this rank's videos (shard.ts), and of them which are
// done (completed, source unchanged) and which are to cut, with why. Pure over the sources, their signatures and states.
import { shardRankOf, type RankShard } from '../../clips/shard';
import type { SourceVideo } from './discover';
import type { SourceSignature, VideoState } from './schemas';
import { sameSignature } from './videoState';

export type TodoReason = 'new' | 'source changed' | 'failed before' | 'interrupted' | 'source changed while cut';

export interface PlannedVideo {
  source: SourceVideo;
  signature: SourceSignature;
  reason: TodoReason;
}

export interface CutPlan {
  /** This rank's videos. */
  selected: number;
  done: SourceVideo[];
  todo: PlannedVideo[];
  /** Other ranks' videos (not this run's). */
  otherRanks: number;
}

export function planCut(sources: readonly { source: SourceVideo; signature: SourceSignature; state: VideoState | null }[], shard: RankShard | null): CutPlan {
  const mine = shard ? sources.filter((s) => shardRankOf(s.source.stem, shard.count) === shard.index - 1) : [...sources];
  const done: SourceVideo[] = [];
  const todo: PlannedVideo[] = [];
  for (const { source, signature, state } of mine) {
    if (state === null) todo.push({ source, signature, reason: 'new' });
    else if (!sameSignature(state.signature, signature)) todo.push({ source, signature, reason: 'source changed' });
    else if (state.state === 'completed') done.push(source);
    else todo.push({ source, signature, reason: state.state === 'failed' ? 'failed before' : 'interrupted' });
  }
  return { selected: mine.length, done, todo, otherRanks: sources.length - mine.length };
}
