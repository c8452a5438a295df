// What a caption run has to do (SPEC-AVTIME-DATA §3, Jobs and Resume): the tracked video directories, those of this
// rank (shard.ts), those --source-video selects (by the exact input_video), and of them the ones not done — a
// video is done when its outcome says completed, its captions_merged.json exists and its signature still matches.
import { promises as fs } from 'node:fs';
import { discoverVideoDirs, type RefusedDir } from './discover';
import { CaptionLayout, SEGMENTS_FILE } from './layout';
import { readVideoOutcome } from './outcome';
import { outcomeBackend } from './schemas';
import { parseSegmentsDoc, issueText, type SegmentsDoc } from '../../clips/segments';
import { shardRankOf } from '../../clips/shard';
import { videoSignature, type RunIdentity } from './videoSignature';
import * as path from 'node:path';

export interface PlannedVideo {
  stem: string;
  dir: string;
  /** The parsed segments.json, or null with `problem` when it does not parse. */
  doc: SegmentsDoc | null;
  problem: string | null;
  signature: string;
}

export interface CaptionPlan {
  /** Videos of this run (this rank, the selection). */
  selected: number;
  done: string[];
  /** Of `done`: videos another backend finished, kept as they are (--allow-mixed without --recaption). */
  kept: string[];
  todo: PlannedVideo[];
  untracked: string[];
  /** Children of the root refused as video directories (a link), with why. */
  refused: RefusedDir[];
  /** Completed videos of this rank by the backend that captioned them (the one-backend rule, backends.ts). */
  backends: Record<string, number>;
  /** --source-video values that match no tracked video of this rank. */
  missing?: string[];
}

/**
 * `keepOtherBackends`: a video another backend completed (its outcome and captions_merged.json there) counts as done
 * and is kept — what --allow-mixed does unless --recaption asks for it again.
 */
export async function planCaptionRun(layout: CaptionLayout, id: RunIdentity, sourceVideos: readonly string[], keepOtherBackends = false): Promise<CaptionPlan> {
  const dirs = await discoverVideoDirs(layout.root);
  const mine = layout.shard ? dirs.tracked.filter((s) => shardRankOf(s, layout.shard!.count) === layout.shard!.index - 1) : dirs.tracked;
  const wanted = new Set(sourceVideos);
  const found = new Set<string>();
  const done: string[] = [];
  const kept: string[] = [];
  const todo: PlannedVideo[] = [];
  const backends: Record<string, number> = {};
  for (const stem of mine) {
    const dir = layout.videoDir(stem);
    const text = await fs.readFile(path.join(dir, SEGMENTS_FILE), 'utf8');
    const parsed = parseSegmentsDoc(stem, text);
    const doc = 'doc' in parsed ? parsed.doc : null;
    if (wanted.size > 0) {
      if (!doc || !wanted.has(doc.input_video)) continue;
      found.add(doc.input_video);
    }
    const signature = doc ? await videoSignature(dir, text, doc, id) : '';
    const outcome = await readVideoOutcome(layout, stem);
    if (outcome?.state === 'completed') backends[outcomeBackend(outcome)] = (backends[outcomeBackend(outcome)] ?? 0) + 1;
    const merged = await fs
      .stat(layout.captionsFile(stem))
      .then((s) => s.isFile())
      .catch(() => false);
    const other = outcome?.state === 'completed' && outcomeBackend(outcome) !== (id.backend?.name ?? 'vllm');
    if (doc && outcome?.state === 'completed' && outcome.signature === signature && merged) done.push(stem);
    else if (keepOtherBackends && other && merged) {
      done.push(stem);
      kept.push(stem);
    } else todo.push({ stem, dir, doc, problem: 'issues' in parsed ? parsed.issues.map(issueText).join('; ') : null, signature });
  }
  return {
    selected: done.length + todo.length,
    done,
    kept,
    todo,
    untracked: dirs.untracked,
    refused: dirs.refused,
    backends,
    ...(wanted.size ? { missing: [...wanted].filter((w) => !found.has(w)) } : {}),
  };
}

/** ` (2 of them by another backend, kept: --recaption captions them again)`, or nothing. */
export function keptWords(kept: readonly string[]): string {
  return kept.length ? ` (${kept.length} of them by another backend, kept: --recaption captions them again)` : '';
}
