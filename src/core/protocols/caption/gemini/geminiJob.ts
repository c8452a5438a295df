// The caption run with the Gemini backend (issue 35; SPEC-AVTIME-DATA §3b; seed §3 "Gemini fallback") on the same
// run type: the same rank state, plan, outcome files, status and views as the vLLM path (job.ts), with no servers.
// Per video: validated as the vLLM path does it, then each clip whose JSON is missing or stale goes through
// clipCaption.ts (at most --max-inflight-clips clips of the run at once, --max-rpm generateContent calls a minute);
// captions_merged.json once every clip has its JSON. Before anything, the uploads a crashed run left are deleted.
// A refused key stops the run through the engine's stop machinery (RunStopper.stopFor: the reason, what to do).
// Every line passes the redactor: the key (registered in geminiKey.ts) never reaches a log.
import * as path from 'node:path';
import { InputError, isUserError, UsageError } from '../../../errors';
import { RankTally } from '../../../runner/rankStatus';
import { stdoutSessionLog, type RunSession, type SessionLog } from '../../../runner/runSession';
import { stopReasonLines } from '../../../runner/stopReason';
import { writeFileAtomic } from '../../../runner/atomicFile';
import { mapBounded } from '../../../runner/mapBounded';
import { redactSecrets } from '../../../security/secrets';
import { ffprobeClipProbe, probeUntilStopped } from '../../../clips/clipProbe';
import { issueText, validateVideoDir } from '../../../clips/segments';
import { ChildStopped } from '../../../media/stoppedChild';
import { refuseMixedBackends } from '../backends';
import type { CaptionJob } from '../jobSchema';
import type { CaptionLayout } from '../layout';
import { GEMINI_NORMALIZER } from '../normalizeGemini';
import { writeVideoOutcome } from '../outcome';
import { keptWords, planCaptionRun, type PlannedVideo } from '../plan';
import { captionPrompt } from '../prompt';
import { captionStatusSchema, type TokenCounts, type VideoOutcome } from '../schemas';
import { captionClipWithGemini, deleteUpload, type GeminiClipContext } from './clipCaption';
import { clipIdentity, reusableClipCaptions, writeClipCaptions, type ClipCaptions } from './clipFile';
import { endpointRefusal, geminiApi, type GeminiApi } from './client';
import { addUsage, NO_USAGE } from './geminiAnswer';
import { googleErrorText, type GoogleError } from './googleError';
import { geminiKeyFromEnv, NO_KEY_WORDS } from './geminiKey';
import { RpmLimiter, type Clock } from './rateLimit';
import { Slots } from './slots';
import { UploadLedger } from './uploadLedger';

/** Where the SDK sends requests when no --gemini-base-url is given. */
const GOOGLE_ENDPOINT = 'https://generativelanguage.googleapis.com';

const redacted: SessionLog = {
  info: (l) => stdoutSessionLog.info(redactSecrets(l)),
  warn: (l) => stdoutSessionLog.warn(redactSecrets(l)),
  error: (l) => stdoutSessionLog.error(redactSecrets(l)),
};

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(t);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** Where this rank lists the files it has uploaded and not deleted yet. */
export const uploadLedgerOf = (layout: CaptionLayout) => new UploadLedger(layout.root, layout.geminiUploadsDir);

interface VideoProgress {
  stem: string;
  clips: number;
  clipsDone: number;
}

export async function runGeminiInSession(session: RunSession, job: CaptionJob, layout: CaptionLayout, api?: GeminiApi): Promise<number> {
  const log = redacted;
  const key = geminiKeyFromEnv();
  if (!key) throw new UsageError(NO_KEY_WORDS);
  const g = job.gemini;
  if (!g) throw new Error('internal: a Gemini caption job without its settings');
  const client = api ?? geminiApi(key, g.baseUrl);
  const prompt = captionPrompt(job.prompt.text, job.prompt.source);
  const provenance: Pick<VideoOutcome, 'backend' | 'model' | 'normalizer'> = { backend: 'gemini', model: job.model, normalizer: GEMINI_NORMALIZER };
  const plan = await planCaptionRun(
    layout,
    { model: job.model, promptSha256: prompt.sha256, sampling: job.sampling, backend: { name: 'gemini', normalizer: GEMINI_NORMALIZER } },
    job.sourceVideos,
    job.allowMixed && !job.recaption,
  );
  if (plan.missing?.length) throw new InputError(`--source-video matches no tracked video${layout.shard ? ' of this rank' : ''}: ${plan.missing.join(', ')}`);
  refuseMixedBackends(plan.backends, 'gemini', job.allowMixed);

  const tally = new RankTally('caption', plan.selected, plan.done.length);
  const running = new Map<string, VideoProgress>();
  let runTokens: TokenCounts = NO_USAGE;
  const status = session.status(captionStatusSchema, (s) => ({
    ...tally.fields(session, layout.shard, s),
    running: [...running.values()].map((v) => ({ ...v })),
    backend: 'gemini' as const,
    tokens: runTokens,
  }));
  await status.write();
  await log.info(
    `run ${session.runId}: ${plan.selected} videos selected, ${plan.done.length} done before${keptWords(plan.kept)}, ${plan.todo.length} to caption, ` +
      `${plan.untracked.length} untracked directories; backend gemini, model ${job.model}, normalizer ${GEMINI_NORMALIZER}, ` +
      `prompt ${prompt.source} (${prompt.sha256.slice(0, 12)})`,
  );
  // A refused directory (a link) is neither a job nor untracked: said with its reason (issue 33).
  for (const r of plan.refused) await log.warn(`refused ${r.name}: ${r.reason}`);

  const ledger = uploadLedgerOf(layout);
  const clipLog = (l: string) => void log.info(l);

  const abort = new AbortController();
  session.cutSignal.addEventListener('abort', () => abort.abort(session.cutSignal.reason), { once: true });
  const keyRefused = (e: GoogleError) => {
    session.stopper.stopFor({
      rule: 'key_refused',
      kind: 'key',
      message: googleErrorText(e),
      meaning: 'Gemini refused the API key (wrong, revoked, or without access to this model or the Files API)',
      action:
        'set GEMINI_API_KEY (or GOOGLE_API_KEY) to a valid key from https://aistudio.google.com/app/apikey (in VS Code: "fpsweep: Set Gemini API key"), then run the same command again: finished clips are kept',
      server: g.baseUrl,
      detail: 'the Gemini API key was refused',
    });
    abort.abort(new Error('key refused'));
  };
  // Nothing answers at the endpoint: no retry can help, so the run stops now, naming the URL and why.
  const endpoint = g.baseUrl ?? GOOGLE_ENDPOINT;
  const unreachable = (e: GoogleError) => {
    if (abort.signal.aborted) return;
    const why = e.cause?.code === 'ENOTFOUND' ? 'its host name is not known' : 'the connection was refused';
    session.stopper.stopFor({
      rule: 'servers_down',
      kind: 'unreachable',
      message: googleErrorText(e),
      meaning: `nothing answers at ${endpoint}: ${why} (no server listening there, or a wrong host or port)`,
      action:
        "check --gemini-base-url (or GOOGLE_GEMINI_BASE_URL; unset for Google's own endpoint) and that the server there is up, " +
        'then run the same command again: finished clips are kept',
      server: endpoint,
      detail: `cannot reach Gemini at ${endpoint}: ${why} (${e.cause?.code ?? 'no answer'})`,
    });
    abort.abort(new Error('endpoint unreachable'));
  };
  // Progress: a line per clip captioned, and while clips are in flight never a silence longer than job.progressMs.
  const inflight = new Map<string, { since: number; step: string }>();
  const clipsTotal = plan.todo.reduce((n, p) => n + (p.doc?.segments.length ?? 0), 0);
  let clipsDone = 0;
  let lastLine = Date.now();
  const say = (line: string) => {
    lastLine = Date.now();
    void log.info(line);
  };
  const progressTick = Math.max(25, Math.floor(job.progressMs / 5));
  const heartbeat = setInterval(() => {
    if (inflight.size === 0 || Date.now() - lastLine < job.progressMs - progressTick) return;
    const now = Date.now();
    const names = [...inflight].slice(0, 3).map(([k, c]) => `${k} (${c.step}, ${Math.round((now - c.since) / 1000)} s)`);
    say(
      `progress: ${clipsDone} of ${clipsTotal} clips captioned this run, ${tally.completed} videos done, ${tally.failed} failed; ` +
        `in flight: ${names.join(', ')}${inflight.size > 3 ? ` and ${inflight.size - 3} more` : ''}`,
    );
  }, progressTick);
  heartbeat.unref();
  // Before any video is checked or any upload left by a crash is deleted: does anything answer there at all?
  const refusal = api ? null : await endpointRefusal(endpoint);
  if (refusal) unreachable({ httpStatus: null, status: null, message: 'the connection could not be made', retryDelayMs: null, reasons: [], cause: refusal });
  // A crash's leftovers first: every file the ledger names is deleted (and said), before anything is uploaded.
  for (const e of abort.signal.aborted ? [] : await ledger.list()) {
    if (await deleteUpload({ api: client, ledger, log: clipLog }, e.name))
      await log.info(`deleted ${e.name} (${e.clip}), uploaded by an earlier run that ended before deleting it`);
  }
  const ctx: GeminiClipContext = {
    api: client,
    model: job.model,
    prompt: prompt.text,
    retries: job.retries,
    baseDelayMs: job.retryBaseDelayMs,
    activeTimeoutS: g.activeTimeoutS,
    pollMs: g.pollMs,
    limiter: new RpmLimiter(g.maxRpm, realClock),
    clock: realClock,
    ledger,
    signal: abort.signal,
    log: clipLog,
    onStep: (key, step) => {
      const c = inflight.get(key);
      if (c) c.step = step;
    },
  };
  const slots = new Slots(job.maxInflightClips);
  const stopped = () => session.stopRequested !== null || abort.signal.aborted;

  async function captionVideo(p: PlannedVideo): Promise<void> {
    if (stopped()) return;
    let failure: string | null = p.problem;
    let tokens: TokenCounts = NO_USAGE;
    const clips: (ClipCaptions | null)[] = [];
    if (failure === null) {
      const { issues } = await validateVideoDir(
        p.dir,
        probeUntilStopped(ffprobeClipProbe(), () => session.stopRequested !== null),
      ).catch((err: unknown) => {
        // Its ffprobe stopped from outside (a scheduler's cancel): no failure of the video, the run drains (issue 43).
        if (!(err instanceof ChildStopped)) throw err;
        session.drain.request(`a child was stopped from outside: ${err.message}`);
        return { issues: null };
      });
      if (issues === null) return;
      if (issues.length) failure = `invalid video directory: ${issues.map(issueText).join('; ')}`;
      else if (stopped()) return;
    }
    if (failure === null && p.doc) {
      const segs = p.doc.segments;
      const progress: VideoProgress = { stem: p.stem, clips: segs.length, clipsDone: 0 };
      running.set(p.stem, progress);
      // Every clip's identity and reusable JSON first; then the clips to ask take their slots in segment order (a
      // take() is queued synchronously, so clip n is asked before clip n+1 of the same video).
      const ids = await Promise.all(
        segs.map((seg) => clipIdentity(p.dir, seg, { model: job.model, normalizer: GEMINI_NORMALIZER, prompt_sha256: prompt.sha256 })),
      );
      const reused = await Promise.all(ids.map((id) => reusableClipCaptions(p.dir, id)));
      await Promise.all(
        segs.map(async (seg, i) => {
          const id = ids[i];
          const kept = reused[i];
          if (kept) {
            clips[i] = kept;
            tokens = addUsage(tokens, kept.tokens);
            progress.clipsDone++;
            return;
          }
          await slots.take();
          try {
            if (failure !== null || stopped()) return;
            const key = `${p.stem}/clip_${String(seg.index).padStart(4, '0')}`;
            const since = Date.now();
            inflight.set(key, { since, step: 'starting' });
            const r = await captionClipWithGemini(ctx, { key, path: path.join(p.dir, seg.clip_path), span: seg }).finally(() => inflight.delete(key));
            tokens = addUsage(tokens, r.tokens);
            runTokens = addUsage(runTokens, r.tokens);
            if (r.kind === 'ok') {
              const c: ClipCaptions = { ...id, backend: 'gemini', events: r.events, content: r.content, tokens: r.tokens, at: new Date().toISOString() };
              await writeClipCaptions(p.dir, c);
              clips[i] = c;
              progress.clipsDone++;
              clipsDone++;
              say(`${key}: captioned in ${((Date.now() - since) / 1000).toFixed(1)} s (${clipsDone} of ${clipsTotal} clips this run)`);
            } else if (r.kind === 'failed') failure ??= `clip ${seg.index}: ${r.reason}`;
            else if (r.kind === 'key') keyRefused(r.error);
            else if (r.kind === 'unreachable') unreachable(r.error);
          } finally {
            slots.give();
          }
        }),
      );
    }
    const base = {
      stem: p.stem,
      signature: p.signature,
      clips: p.doc?.segments.length ?? 0,
      runId: session.runId,
      rank: layout.shard ? layout.shard.index - 1 : null,
      ...provenance,
      tokens,
    };
    if (failure !== null) {
      await writeVideoOutcome(layout, { ...base, state: 'failed', reason: redactSecrets(failure), at: new Date().toISOString() });
      tally.failed++;
      await log.error(`${p.stem}: failed: ${failure}`);
      if (job.failFast) session.drain.request(`--fail-fast: ${p.stem} failed`);
    } else if (p.doc && clips.length === p.doc.segments.length && clips.every((c) => c)) {
      const merged = clips.flatMap((c) => c!.events.map((e) => ({ ...e, backend: 'gemini', model: job.model, normalizer: GEMINI_NORMALIZER })));
      await writeFileAtomic(layout.root, layout.captionsFile(p.stem), JSON.stringify(merged, null, 2) + '\n');
      await writeVideoOutcome(layout, { ...base, state: 'completed', reason: null, at: new Date().toISOString() });
      tally.completed++;
    }
    running.delete(p.stem);
  }

  let userError = false;
  try {
    tally.running();
    await status.write();
    await mapBounded(plan.todo, job.maxJobs, captionVideo);
    const fatal = session.stopper.stopReason;
    if (fatal) tally.breakOff(stopReasonLines(fatal).join('\n'));
    else tally.end(session.stopRequested !== null);
  } catch (err) {
    tally.breakOff(`failed: ${redactSecrets((err as Error)?.message ?? String(err))}`);
    userError = isUserError(err);
  } finally {
    clearInterval(heartbeat);
  }
  await log.info(`tokens this run: ${runTokens.total} (prompt ${runTokens.prompt}, answers ${runTokens.candidates})`);
  await log.info(tally.summary!);
  await status.write(tally.summary);
  // The user's error (a link planted where the run's state belongs, the uploads' ledger): 2, as every bad input.
  return tally.state === 'done' ? 0 : userError ? 2 : 1;
}
