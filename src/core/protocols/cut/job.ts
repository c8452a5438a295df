// The cut's worker job (SPEC-AVTIME-DATA §2) on the engine: a RunSession ('drain': a stop starts no new video and
// lets the cuts under way finish and be published), discovery and the plan, then this rank's videos through the
// engine's bounded pool, one slot per lane (its GPU). Exit 0 only when every selected video is completed; 1 when any
// failed or is left pending; 2 for the user's errors (a shared stem, an unreadable input root).
import { isUserError } from '../../errors';
import { ffprobeClipProbe } from '../../clips/clipProbe';
import { writeFileAtomic } from '../../runner/atomicFile';
import { mapBounded } from '../../runner/mapBounded';
import { runJobInSession } from '../../runner/jobSession';
import { RankTally } from '../../runner/rankStatus';
import { stdoutSessionLog, type RunSession } from '../../runner/runSession';
import { endOrphanedCutters } from './cutterRecords';
import { cutterOf } from './cutters';
import { cutVideo, type CutVideoContext } from './cutVideo';
import type { CutJob } from './jobSchema';
import { CutLayout } from './layout';
import { planCut } from './plan';
import { cutStatusSchema, runFileSchema } from './schemas';
import { readCutSources } from './sources';

const log = stdoutSessionLog;

export async function runCutJob(job: CutJob): Promise<number> {
  const layout = new CutLayout(job.root, job.shard);
  return runJobInSession({ name: 'cut', root: layout.runRoot, tickMs: job.tickMs }, (s) => runInSession(s, job, layout));
}

async function runInSession(session: RunSession, job: CutJob, layout: CutLayout): Promise<number> {
  const cutter = await cutterOf(job);
  await endOrphans(layout, session.runId);
  const plan = planCut(await readCutSources(layout, job.inputRoot), layout.shard);
  await writeFileAtomic(
    layout.root,
    layout.runFile,
    JSON.stringify(runFileSchema.parse({ inputRoot: job.inputRoot, cutter: cutter.name, at: new Date().toISOString() }), null, 1) + '\n',
  );
  const rank = layout.shard ? layout.shard.index - 1 : null;
  const tally = new RankTally('cut', plan.selected, plan.done.length);
  const running = new Set<string>();
  const status = session.status(cutStatusSchema, (s) => ({ ...tally.fields(session, layout.shard, s), running: [...running].sort() }));
  await status.write();
  const rankWords = layout.shard ? ` rank ${layout.shard.index}/${layout.shard.count}` : '';
  const gpus = [...new Set(job.lanes.map((l) => l.gpu).filter((g) => g !== null))];
  await log.info(
    `run ${session.runId}${rankWords}: ${plan.selected} videos selected, ${plan.done.length} done before, ${plan.todo.length} to cut ` +
      `(${plan.otherRanks} of other ranks); cutter ${cutter.name}, ${job.lanes.length} at once${gpus.length ? ` on GPUs ${gpus.join(',')}` : ''}`,
  );
  if (cutter.knownDegraded.length) await log.warn(`the ${cutter.name} cutter runs without ${cutter.knownDegraded.join(', ')}: every cut it makes is degraded`);
  const ctx: CutVideoContext = {
    layout,
    cutter,
    allowDegraded: job.allowDegraded,
    probe: ffprobeClipProbe(),
    runId: session.runId,
    rank,
    interrupted: (why) => session.drain.request(`a child was stopped from outside: ${why}`),
  };
  tally.running();
  await status.write();
  let userError = false;
  try {
    await mapBounded(plan.todo, job.lanes.length, async (video, _i, lane) => {
      if (session.stopRequested) return;
      const stem = video.source.stem;
      running.add(stem);
      try {
        const out = await cutVideo(ctx, video, job.lanes[lane].gpu, session.cutSignal);
        if (out.state === 'completed') {
          tally.completed++;
          await log.info(`${stem}: published ${out.segments} segments${out.degraded.length ? ` (degraded: no ${out.degraded.join(', ')})` : ''}`);
        } else if (out.state === 'failed') {
          tally.failed++;
          await log.error(`${stem}: failed: ${out.reason}`);
        }
      } finally {
        running.delete(stem);
      }
    });
    tally.end(!!session.stopRequested);
  } catch (err) {
    tally.breakOff(`failed: ${(err as Error)?.message ?? String(err)}`);
    userError = isUserError(err);
  }
  await log.info(tally.summary!);
  await status.write(tally.summary);
  // The user's error (a link planted where the run's state belongs): 2, as every bad input.
  return tally.state === 'done' ? 0 : userError ? 2 : 1;
}

/** Cutters an earlier run left running when its worker died: ended before this run cuts anything, each said in the log. */
async function endOrphans(layout: CutLayout, runId: string): Promise<void> {
  for (const { record, outcome } of await endOrphanedCutters(layout, runId)) {
    const which = `the cutter of ${record.stem} (process group ${record.pgid}) that run ${record.runId} left behind when its worker died`;
    if (outcome === 'ended') await log.warn(`ended ${which}`);
    else if (outcome === 'survived') await log.error(`could not end ${which}: it survived SIGKILL; end it by hand before its GPU is used again`);
  }
}
