// An AVTime-Bench run, stage by stage (SPEC-AVTIME §8–§9): inputs → infer → normalize → judge → score, each
// stage reading the artifacts of the one before. Everything the user gave is checked before the output root is
// created, so bad input (exit 2) writes nothing (./runPlan.ts, ./runInputs.ts). The run then goes on in the
// engine's RunSession with the fail-closed policy: the session holds the root's lock, writes the status file
// each second, and on a stop (SIGTERM, SIGINT, the stop file) cuts in-flight requests at once; the run ends
// "failed" with what stopped it and what to do next (./stopAdvice.ts), and the session releases the lock.
import * as path from 'node:path';
import { InputError, isUserError } from '../../../errors';
import { withRunSession, type RunSession, type SessionLog } from '../../../runner/runSession';
import { assignShards } from './infer';
import type { AvtimeOptionsInput, AvtimeVerb } from './options';
import { STAGES } from './options';
import { parseAvtimeOptions, planRun, type RunPlan } from './runPlan';
import { readRunInputs, type RunInputs } from './runInputs';
import { benchInputFiles, hashInputs, writeRunStart } from './runStart';
import { inferRefusal, stageIncomplete } from './completeness';
import { AvtimeRunStatus } from './runStatus';
import { avtimeStatusSchema } from './statusSchema';
import { newRunWords, resumeWords, stoppedLine } from './stopAdvice';
import { StageFailed, type AvtimeHooks, type StageContext } from './drivers/context';
import { inputsStage, inputsVerb } from './drivers/inputs';
import { inferStage } from './drivers/infer';
import { normalizeStage } from './drivers/normalize';
import { judgeStage } from './drivers/judge';
import { scoreStage } from './drivers/score';
import { mkdirUnder, removeUnder } from '../../../containment/rootFs';
import { unreachableRule } from '../../../runner/unreachableRule';
import { stopReasonLines } from '../../../runner/stopReason';

export type { AvtimeHooks };

export interface AvtimeResult {
  exitCode: 0 | 1 | 2;
  /** The last line: what happened, in numbers. */
  line: string;
  outputRoot: string | null;
  runId: string | null;
}

export async function runAvtime(verb: AvtimeVerb, input: AvtimeOptionsInput, hooks: AvtimeHooks = {}): Promise<AvtimeResult> {
  const log = hooks.log ?? ((l: string) => process.stderr.write(`avtime: ${l}\n`));
  try {
    const given = parseAvtimeOptions(input);
    if (verb === 'inputs') return await inputsVerb(given);
    const plan = await planRun(verb, input, given, log);
    const run = await readRunInputs(plan);
    await checkEarlierStages(plan, run);
    if (hooks.checkOnly)
      return {
        exitCode: 0,
        line: `checked: ${run.inputs.length} target inputs, ${run.queries.length} queries → ${plan.layout.root}`,
        outputRoot: plan.layout.root,
        runId: plan.layout.runId,
      };
    return await runInSession(plan, run, hooks, log);
  } catch (err) {
    if (isUserError(err)) return { exitCode: 2, line: err.message, outputRoot: null, runId: null };
    throw err;
  }
}

/**
 * The stages before this verb's first must be complete, and target inference may not restart a canonical
 * run's started shards: refused here, before the lock and the status file, the root stays byte for byte as it was.
 */
async function checkEarlierStages(plan: RunPlan, run: RunInputs): Promise<void> {
  const shards = assignShards(run.inputs, run.groups);
  for (const before of STAGES.slice(1, STAGES.indexOf(run.stages[0]))) {
    const problem = await stageIncomplete(before, plan.layout, shards);
    if (problem) throw new InputError(problem);
  }
  if (run.stages.includes('infer')) {
    const problem = await inferRefusal(plan.layout, shards, plan.canonical, newRunWords(!!plan.opts.outputRoot));
    if (problem) throw new InputError(problem);
  }
}

async function runInSession(plan: RunPlan, run: RunInputs, hooks: AvtimeHooks, log: (l: string) => void): Promise<AvtimeResult> {
  const { layout } = plan;
  await mkdirUnder(layout.root, layout.root);
  const sessionLog: SessionLog = { info: log, warn: log, error: log };
  const options = { root: layout, runId: layout.runId, policy: 'fail-closed' as const, log: sessionLog, stopSignal: hooks.stopSignal, signals: hooks.signals };
  let opened = false;
  try {
    return await withRunSession(options, (session) => {
      opened = true;
      return runStagesInSession(session, plan, run, hooks, log);
    });
  } catch (err) {
    // The lock was not ours (another run holds it): a root this verb made for it goes, untouched otherwise.
    if (!opened && !plan.rootExisted) await removeUnder(path.dirname(layout.root), layout.root, { recursive: true });
    throw err;
  }
}

async function runStagesInSession(session: RunSession, plan: RunPlan, run: RunInputs, hooks: AvtimeHooks, log: (l: string) => void): Promise<AvtimeResult> {
  const { layout } = plan;
  const status = new AvtimeRunStatus({ runId: layout.runId, outputRoot: layout.root, canonical: plan.canonical });
  const reporter = session.status(avtimeStatusSchema, () => status.snapshot());
  const lines: string[] = [];
  const ctx: StageContext = {
    plan,
    run,
    status,
    cut: session.cutSignal,
    say: (l) => {
      lines.push(l);
      log(l);
    },
    log,
    hooks,
    unreachable: (fleet, given) =>
      given ? unreachableRule(session, fleet, { failDownS: plan.opts.failDownS, log, resume: resumeWords(plan.continuing, plan.layout.runId) }) : undefined,
  };
  let exitCode: 0 | 1 | 2 = 0;
  let line = '';
  try {
    await reporter.write();
    line = await runStages(ctx, lines);
  } catch (err) {
    ({ exitCode, line } = failure(err, session.stopRequested, ctx, log));
    // Stopped on its own (every given server unreachable): what stopped it, the URL, its words, what to do.
    const reason = session.stopper.stopReason;
    if (reason && exitCode === 1)
      line = stopReasonLines(reason)
        .map((l) => l.trim())
        .join('; ');
  } finally {
    status.end(exitCode === 0 ? 'done' : 'failed', line);
    await reporter.write().catch((err: Error) => log(`status file: ${err.message}`));
  }
  return { exitCode, line, outputRoot: layout.root, runId: layout.runId };
}

/** The verb's stages in order; resolves to its last line. A stop between two stages ends the run there. */
async function runStages(c: StageContext, lines: readonly string[]): Promise<string> {
  const { plan, run } = c;
  const last = (fallback: string) => lines[lines.length - 1] ?? fallback;
  if (!plan.continuing) {
    const input_sha256 = await hashInputs(benchInputFiles(plan.bench));
    await writeRunStart(plan.layout, {
      run_id: plan.layout.runId,
      started_at: plan.startedAt,
      canonical: plan.canonical,
      options: plan.opts,
      shards: run.groups,
      input_sha256,
    });
  }
  await inputsStage(c);
  // The stages before this verb's were checked before the lock.
  if (run.stages.includes('infer')) await inferStage(c);
  if (plan.verb === 'infer') return last('target inference: already complete');
  c.cut.throwIfAborted();
  const { outcomes, predictions } = await normalizeStage(c);
  if (plan.verb === 'normalize') return last(`normalization: already complete (${plan.layout.predictionReport})`);
  c.cut.throwIfAborted();
  const counted = await judgeStage(c, predictions);
  if (plan.verb === 'judge') return last(`judge: already complete (${plan.layout.semanticReport})`);
  c.cut.throwIfAborted();
  return scoreStage(c, outcomes, counted);
}

/** How the run ended when a stage threw: stopped (whatever the stage threw on its way out), failed, or refused. */
function failure(err: unknown, stopped: string | null, c: StageContext, log: (l: string) => void): { exitCode: 1 | 2; line: string } {
  if (stopped) return { exitCode: 1, line: stoppedLine(stopped, c.status.status, newRunWords(!!c.plan.opts.outputRoot)) };
  if (err instanceof StageFailed) return { exitCode: 1, line: err.message };
  if (isUserError(err)) return { exitCode: 2, line: err.message };
  log((err as Error)?.stack ?? String(err));
  return { exitCode: 1, line: `${c.plan.verb} failed: ${(err as Error)?.message ?? String(err)}` };
}
