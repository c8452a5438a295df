// The cut's worker job (SPEC-AVTIME-DATA §2) on the engine: a RunSession ('drain': a stop starts no new video and
// lets the cuts under way finish and be published), discovery and the plan, then this rank's videos through the
// engine's bounded pool, one slot per lane (its GPU). Exit 0 only when every selected video is completed; 1 when any
// failed or is left pending; 2 for the user's errors (a shared stem, an unreadable input root).
import { promises as fs } from 'node:fs';
import { ffprobeClipProbe } from '../../clips/clipProbe';
import { writeFileAtomic } from '../../runner/atomicFile';
import { mapBounded } from '../../runner/mapBounded';
import { runJobInSession } from '../../runner/jobSession';
import { stdoutSessionLog, type RunSession } from '../../runner/runSession';
import { cutterOf } from './cutters';
import { cutVideo, type CutVideoContext } from './cutVideo';
import type { CutJob } from './jobSchema';
import { CutLayout } from './layout';
import { planCut } from './plan';
import { cutStatusSchema, runFileSchema, type CutStatus } from './schemas';
import { readCutSources } from './sources';

const log = stdoutSessionLog;

export async function runCutJob(job: CutJob): Promise<number> {
  const layout = new CutLayout(job.root, job.shard);
  return runJobInSession({ name: 'cut', root: layout.runRoot, tickMs: job.tickMs }, (s) => runInSession(s, job, layout));
}

async function runInSession(session: RunSession, job: CutJob, layout: CutLayout): Promise<number> {
  const cutter = await cutterOf(job);
  const plan = planCut(await readCutSources(layout, job.inputRoot), layout.shard);
  await fs.mkdir(layout.stateBase, { recursive: true });
  await writeFileAtomic(
    layout.runFile,
    JSON.stringify(runFileSchema.parse({ inputRoot: job.inputRoot, cutter: cutter.name, at: new Date().toISOString() }), null, 1) + '\n',
  );
  const rank = layout.shard ? layout.shard.index - 1 : null;
  let state: CutStatus['state'] = 'starting';
  let completed = plan.done.length;
  let failed = 0;
  let summary: string | null = null;
  const running = new Set<string>();
  const status = session.status(cutStatusSchema, (s) => ({
    runId: session.runId,
    pid: process.pid,
    state,
    rank,
    of: layout.shard?.count ?? null,
    selected: plan.selected,
    completed,
    failed,
    running: [...running].sort(),
    stopRequested: session.stopRequested,
    summary: s ?? summary,
  }));
  await status.write();
  const rankWords = layout.shard ? ` rank ${layout.shard.index}/${layout.shard.count}` : '';
  const gpus = [...new Set(job.lanes.map((l) => l.gpu).filter((g) => g !== null))];
  await log.info(
    `run ${session.runId}${rankWords}: ${plan.selected} videos selected, ${plan.done.length} done before, ${plan.todo.length} to cut ` +
      `(${plan.otherRanks} of other ranks); cutter ${cutter.name}, ${job.lanes.length} at once${gpus.length ? ` on GPUs ${gpus.join(',')}` : ''}`,
  );
  if (cutter.knownDegraded.length) await log.warn(`the ${cutter.name} cutter runs without ${cutter.knownDegraded.join(', ')}: every cut it makes is degraded`);
  const ctx: CutVideoContext = { layout, cutter, allowDegraded: job.allowDegraded, probe: ffprobeClipProbe(), runId: session.runId, rank };
  state = 'running';
  await status.write();
  try {
    await mapBounded(plan.todo, job.lanes.length, async (video, _i, lane) => {
      if (session.stopRequested) return;
      const stem = video.source.stem;
      running.add(stem);
      try {
        const out = await cutVideo(ctx, video, job.lanes[lane].gpu, session.cutSignal);
        if (out.state === 'completed') {
          completed++;
          await log.info(`${stem}: published ${out.segments} segments${out.degraded.length ? ` (degraded: no ${out.degraded.join(', ')})` : ''}`);
        } else if (out.state === 'failed') {
          failed++;
          await log.error(`${stem}: failed: ${out.reason}`);
        }
      } finally {
        running.delete(stem);
      }
    });
    const pending = plan.selected - completed - failed;
    state = failed > 0 || (pending > 0 && !session.stopRequested) ? 'failed' : pending > 0 ? 'stopped' : 'done';
    summary = `cut: ${completed} done, ${failed} failed, ${pending} pending (of ${plan.selected} selected)`;
  } catch (err) {
    state = 'failed';
    const pending = plan.selected - completed - failed;
    summary = `failed: ${(err as Error)?.message ?? String(err)}\ncut: ${completed} done, ${failed} failed, ${pending} pending (of ${plan.selected} selected)`;
  }
  await log.info(summary);
  await status.write(summary);
  return state === 'done' ? 0 : 1;
}
