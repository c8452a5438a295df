// `fpsweep avtime dvc` (seed Part III §7, SPEC-AVTIME-DATA §6): AVTime-Bench's target request for every row of a
// reference-free JSONL, through the engine's request runner, under the direct CLI's policy. Defaults (the seed's):
// resume (ids already in the raw file are skipped) and continue on error, and still exit 2 when any row failed;
// --no-continue-on-error stops at the first failed row (exit 2); --no-resume refuses an existing raw file.
import { promises as fs } from 'node:fs';
import { InputError, UsageError, type LineProblem } from '../../../../errors';
import { withRunSession, type SessionLog } from '../../../../runner/runSession';
import type { SignalHost } from '../../../../runner/drainControl';
import { AppendFile } from '../../../../runner/appendFile';
import type { ClientOptions } from '../../../../serving/client';
import type { TargetPlan } from '../../../../serving/models/qwen3Omni/videoPlan';
import { writtenIds } from '../../stages/infer';
import type { RowError } from '../../stages/targetRow';
import { readTargetPrompt } from '../../stages/targetPrompt';
import { BenchRoot } from '../../stages/layout';
import { startServers, type AvtimeServers } from '../../stages/servers';
import { mediaRoot } from '../../stages/drivers/infer';
import { makeTargetPlanner } from '../../stages/preflight';
import { sha256File, sha256Text, writeFileAtomic } from '../../stages/files';
import { TARGET_DECODING } from '../../constants';
import { refuseNonEmpty } from '../outputs';
import { DataInputError } from '../sourceLines';
import { DvcLayout } from './layout';
import { sendRows } from './send';
import { readDvcRows, type DvcRow, type PromptStyle } from './rows';
import { mkdirUnder, openAppendUnder } from '../../../../containment/rootFs';
import { unreachableRule } from '../../../../runner/unreachableRule';
import { stopReasonLines } from '../../../../runner/stopReason';

export interface DvcOptions {
  jsonl: string;
  outputDir: string;
  /** The raw answers' file (the seed's --predictions-jsonl); default <output-dir>/raw_predictions.jsonl. */
  predictionsJsonl?: string;
  /** Running servers (one or more; rows go to whichever has room), or … */
  baseUrls?: string[];
  /** … `vllm serve <model-path>` per GPU group. */
  modelPath?: string;
  gpus: number[][];
  tp: number;
  basePort: number;
  vllmBin?: string;
  /** The model's identity: recorded, and the model asked for at --base-url servers. */
  modelName: string;
  promptStyle: PromptStyle;
  /** --prompt-style train: the bench root whose prompts/target.txt is the frozen prompt. */
  benchRoot?: string;
  resume: boolean;
  continueOnError: boolean;
  audioInVideo: boolean;
  /** Requests in flight per server. */
  batch: number;
  /**
   * --base-url with continue-on-error (runner/unreachableRule.ts; 0 = off, default 120): every server unreachable this
   * many seconds stops the run (exit 1, the URL, its words, what to do); the rows left stay to do, none written off.
   */
  failDownS?: number;
}

/** How a --no-resume run that stopped is taken up (the same command would refuse its raw file). */
const NO_RESUME_WORDS = 'then run the same command without --no-resume: it resumes where it stopped (nothing written is lost)';

export interface DvcHooks {
  planFor?: (videoPath: string) => Promise<TargetPlan>;
  clientOptions?: ClientOptions;
  stopSignal?: AbortSignal;
  signals?: SignalHost;
  startTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface DvcResult {
  exitCode: 0 | 1 | 2;
  line: string;
}

/** The rows' videos must exist: a missing one is the input's problem (file:line), found before any request. */
async function checkVideos(file: string, rows: readonly DvcRow[]): Promise<void> {
  const problems: LineProblem[] = [];
  for (const r of rows) {
    const st = await fs.stat(r.video).catch(() => null);
    if (!st?.isFile()) problems.push({ file, line: r.line, message: `videos[0]: ${r.video} is not a file` });
  }
  if (problems.length) throw new DataInputError(`--jsonl ${file}: videos missing`, problems);
}

/** Resume: the ids already answered; an id the input does not have means the output is another input's. */
async function alreadyWritten(layout: DvcLayout, rows: readonly DvcRow[], resume: boolean, log?: (l: string) => void): Promise<Set<string>> {
  if (!resume) {
    await refuseNonEmpty(layout.rawPredictions, '--predictions-jsonl');
    return new Set();
  }
  const have = await writtenIds(layout.rawPredictions, log).catch((err: Error) => {
    throw new InputError(`cannot resume from ${layout.rawPredictions}: ${err.message}`);
  });
  const ids = new Set(rows.map((r) => r.id));
  const foreign = [...have.keys()].filter((id) => !ids.has(id));
  if (foreign.length) {
    throw new InputError(
      `${layout.rawPredictions} holds ${foreign.length} id(s) the input does not (${foreign.slice(0, 5).join(', ')}): ` +
        "it is another input's output; choose a new --output-dir",
    );
  }
  return new Set(have.keys());
}

async function promptOf(o: DvcOptions): Promise<{ file: string; text: string } | null> {
  if (o.promptStyle === 'jsonl') return null;
  if (!o.benchRoot) throw new UsageError('--prompt-style train needs --bench-root DIR (BENCH_ROOT): its prompts/target.txt is the frozen prompt');
  return readTargetPrompt(new BenchRoot(o.benchRoot));
}

export async function runDvc(o: DvcOptions, hooks: DvcHooks = {}): Promise<DvcResult> {
  if (!o.baseUrls?.length === !o.modelPath) throw new UsageError('give exactly one of --base-url URL[,URL…] and --model-path DIR');
  const log = hooks.log ?? (() => undefined);
  const { rows, bytes } = await readDvcRows(o.jsonl, o.promptStyle);
  const prompt = await promptOf(o);
  await checkVideos(o.jsonl, rows);
  const layout = new DvcLayout(o.outputDir, o.predictionsJsonl);
  const done = await alreadyWritten(layout, rows, o.resume, log);
  const todo = rows.filter((r) => !done.has(r.id));
  await mkdirUnder(layout.root, layout.root);
  const sessionLog: SessionLog = { info: log, warn: log, error: log };
  return withRunSession(
    { root: layout, runId: 'dvc', policy: 'drain', log: sessionLog, stopSignal: hooks.stopSignal, signals: hooks.signals },
    async (session) => {
      let servers: AvtimeServers | null = null;
      let sent: { written: number; errors: RowError[] } = { written: 0, errors: [] };
      const out = new AppendFile(layout.root, layout.rawPredictions);
      try {
        await (await openAppendUnder(layout.root, layout.rawPredictions)).close(); // the raw file exists from the start, empty or not
        if (todo.length) {
          servers = await startServers({
            role: 'target',
            layout,
            model: o.modelPath ?? o.modelName,
            groups: o.gpus,
            tp: o.tp,
            basePort: o.basePort,
            endpoints: o.baseUrls,
            mediaRoot: o.modelPath ? mediaRoot(todo.map((r) => r.video)) : undefined,
            vllmBin: o.vllmBin,
            log,
            startTimeoutMs: hooks.startTimeoutMs,
            signal: session.cutSignal,
          });
          // Given servers nothing of ours restarts: gone for --fail-down, the run stops and their rows stay to do.
          const reach =
            o.baseUrls?.length && o.continueOnError
              ? unreachableRule(session, servers.fleet, { failDownS: o.failDownS ?? 120, log, resume: o.resume ? undefined : NO_RESUME_WORDS })
              : undefined;
          sent = await sendRows(session, {
            rows: todo.map((r) => ({ id: r.id, video_id: r.video_id, video: r.video, prompt: r.userText ?? prompt!.text })),
            endpoints: servers.endpoints,
            ask: { model: servers.servedModel, audioInVideo: o.audioInVideo, planFor: hooks.planFor ?? makeTargetPlanner(o.audioInVideo) },
            out,
            continueOnError: o.continueOnError,
            batch: o.batch,
            clientOptions: hooks.clientOptions,
            log,
            reach,
            fleet: servers.fleet,
          });
        }
      } finally {
        await out.close();
        await servers?.fleet.stop();
      }
      const { written, errors } = sent;
      const expected = rows.length;
      const have = done.size + written;
      const summary = {
        expected,
        written: have,
        failed: errors.length,
        errors,
        resumed: done.size,
        policy: { resume: o.resume, continue_on_error: o.continueOnError },
        prompt_style: o.promptStyle,
        model_name: o.modelName,
        ...(o.modelPath ? { model_path: o.modelPath } : { base_urls: o.baseUrls }),
        decoding: { ...TARGET_DECODING, use_audio_in_video: o.audioInVideo },
        inputs: {
          jsonl: { path: o.jsonl, sha256: sha256Text(bytes) },
          ...(prompt ? { prompt: { path: prompt.file, sha256: sha256Text(prompt.text) } } : {}),
        },
        outputs: { raw_predictions: { path: layout.rawPredictions, sha256: await sha256File(layout.rawPredictions) } },
      };
      await writeFileAtomic(layout.root, layout.summary, JSON.stringify(summary, null, 1) + '\n');
      const stopped = session.stopRequested;
      const reason = session.stopper.stopReason;
      const why = reason
        ? stopReasonLines(reason)
            .map((l) => l.trim())
            .join('; ')
        : `stopped (${stopped})`;
      const line = `dvc: ${have}/${expected} written (${done.size} resumed), ${errors.length} failed${stopped ? `; ${why}` : ''}`;
      // The seed's direct CLI: any failed row makes the run exit 2, whether or not it went on with the others.
      const exitCode = errors.length ? 2 : have === expected ? 0 : 1;
      return { exitCode, line };
    },
  );
}
