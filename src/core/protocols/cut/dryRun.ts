// `fpsweep avtime cut --dry-run`: discovery, each source's signature and rank, and what the run would do with it
// (cut, and why; skip, done; another rank's), read-only: nothing is written, not even the state directory.
import type { CutJob } from './jobSchema';
import { readCutSources } from './sources';
import type { CutLayout } from './layout';
import { planCut } from './plan';
import { shardRankOf } from '../../clips/shard';

export interface DryRunView {
  inputRoot: string;
  outputRoot: string;
  cutter: string;
  lanes: (string | null)[];
  shard: { index: number; count: number } | null;
  videos: { stem: string; source: string; size: number; mtimeNs: string; rank: number | null; action: string }[];
  toCut: number;
  done: number;
  otherRanks: number;
}

export async function dryRunView(layout: CutLayout, job: CutJob): Promise<DryRunView> {
  const sources = await readCutSources(layout, job.inputRoot);
  const plan = planCut(sources, layout.shard);
  const todo = new Map(plan.todo.map((t) => [t.source.stem, t.reason]));
  const done = new Set(plan.done.map((d) => d.stem));
  return {
    inputRoot: job.inputRoot,
    outputRoot: layout.root,
    cutter: job.cutter.kind === 'builtin' ? 'builtin (degraded: no asr, no audio_events)' : job.cutter.argv.join(' '),
    lanes: job.lanes.map((l) => l.gpu),
    shard: layout.shard,
    videos: sources.map(({ source, signature }) => ({
      stem: source.stem,
      source: source.file,
      size: signature.size,
      mtimeNs: signature.mtimeNs,
      rank: layout.shard ? shardRankOf(source.stem, layout.shard.count) : null,
      action: todo.has(source.stem) ? `cut (${todo.get(source.stem)})` : done.has(source.stem) ? 'skip (done, source unchanged)' : 'other rank',
    })),
    toCut: plan.todo.length,
    done: plan.done.length,
    otherRanks: plan.otherRanks,
  };
}

export function dryRunText(v: DryRunView): string {
  const shard = v.shard ? ` rank ${v.shard.index}/${v.shard.count}` : '';
  const gpus = [...new Set(v.lanes.filter((g) => g !== null))];
  return [
    `dry run${shard}: ${v.videos.length} source videos in ${v.inputRoot} → ${v.outputRoot}`,
    `  cutter ${v.cutter}; ${v.lanes.length} at once${gpus.length ? ` on GPUs ${gpus.join(',')}` : ''}`,
    ...v.videos.map((x) => `  ${x.stem}: ${x.action}${x.rank === null ? '' : ` [rank ${x.rank + 1}]`}  (${x.size} bytes, mtime ${x.mtimeNs} ns)`),
    `would cut ${v.toCut}, skip ${v.done} done, leave ${v.otherRanks} to other ranks; nothing written`,
  ].join('\n');
}
