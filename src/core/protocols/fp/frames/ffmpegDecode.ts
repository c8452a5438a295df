// Decodes one stored video once, sequentially, and hands over only the frames asked for.
//
// One ffmpeg process: the video stream is split in two. Branch 1 goes to a `null` output that sees
// every decoded frame, and is the FIRST output, so ffmpeg's own frame counter (`-progress`, which
// reports the first output's count) is the number of frames decoded. Branch 2 passes through
// `select` (only the needed frames) and leaves as raw RGB on stdout. Both outputs use
// `-fps_mode passthrough`: no frame is duplicated or dropped, so the n-th decoded frame is
// `timestamps[n]` of meta.json (SPEC §2.3) and `select`'s `n` is the stored frame index.
//
// Never guessed around: a different frame count (decoded vs meta.n_frames), a different frame size,
// fewer raw frames on stdout than selected, or a non-zero exit is a DecodeError with the numbers and
// ffmpeg's last stderr lines. The caller writes nothing final before success.
//
// The size is checked inside the same ffmpeg run, not by a separate ffprobe (a second process start per
// video, ~3% of the pipeline's CPU): a `crop` that keeps every frame as it is when the frame is the size
// meta.json gives, and whose width becomes 0, a configuration error, for any other size, including a
// size change mid-stream. ffprobe runs only after such a failure, to put the real size in the message.
//
// Memory: each raw frame's bytes are taken from a shared ByteBudget before it is read; when the budget
// is spent we stop reading stdout, the pipe fills and ffmpeg blocks (backpressure). A frame's bytes come
// back when its consumer's promise settles.
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { FrameAssembler } from './frameAssembler';
import type { ByteBudget } from './limits';
import { defaultRawTransport, openSocketTransport, pipeTransport, type RawTransportKind } from './rawTransport';
import { selectExpression, sortedUnique } from './selectExpr';
import { parseBoundedJson } from '../../../io/boundedJson';
import { killGroupAtExit } from '../../../runner/processGroup';
import { stoppedFromOutside } from '../../../media/stoppedChild';

// execa 9 is ESM-only: a dynamic import loads it natively under tsx and in the esbuild bundle.
const loadExeca = () => import('execa').then((m) => m.execa);

/** A video that cannot be decoded as meta.json describes it: a `decode` failure of its requests. */
export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}

/**
 * ffmpeg was stopped from outside (issue 43): ended by SIGTERM, SIGINT or SIGHUP, or exit 255, ffmpeg's status when
 * it caught one of them. A scheduler's cancel (Slurm's `scancel` signals every process of the job) or a Ctrl-C
 * reaches it so: the video is not at fault, and the run is being stopped. Not a DecodeError: nothing is logged.
 */
export class DecodeInterrupted extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeInterrupted';
  }
}

/** Whether ffmpeg's end says a stop signal reached it (exit 255 is ffmpeg's status after catching one). */
export function stoppedBySignal(result: { exitCode?: number; signal?: string }): boolean {
  return stoppedFromOutside(result, { ffmpeg: true });
}

export interface DecodeSpec {
  videoPath: string;
  /** Stored dims from meta.json: the raw frames must have exactly this size. */
  width: number;
  height: number;
  /** meta.n_frames: ffmpeg must decode exactly this many frames. */
  expectedFrames: number;
  /** Stored frame indices to deliver (any order, duplicates ignored); each must be < expectedFrames. */
  indices: readonly number[];
  ffmpegPath: string;
  ffprobePath: string;
  /** ffmpeg decoder threads; 0 = ffmpeg's own choice. */
  threads: number;
  budget: ByteBudget;
  /** How raw frames reach node (same bytes; see rawTransport.ts); default: socket where available. */
  transport?: RawTransportKind;
  signal?: AbortSignal;
  /**
   * The run is stopping (issue 43): ffmpeg is ended at once (or never started) and the decode ends as
   * DecodeInterrupted, not as a failure: a stopping run sends no new request, so these frames are not waited for.
   * A decode that had already succeeded keeps its frames.
   */
  stop?: AbortSignal;
  /**
   * Called once ffmpeg has exited, before the last onFrame promises settle: the decode's CPU is free
   * from then on (the pipeline hands its pool slot to the next video while this one's JPEGs finish).
   */
  onDecoderExit?(): void;
  /**
   * Called once per selected frame, in index order, with packed RGB (width·height·3 bytes). The buffer
   * is reused once the returned promise settles: copy what must outlive it. A rejection stops the decode.
   */
  onFrame(index: number, rgb: Buffer): Promise<void>;
}

export interface DecodeResult {
  /** Frames ffmpeg decoded (== expectedFrames on success). */
  decodedFrames: number;
  /** Frames delivered to onFrame. */
  deliveredFrames: number;
  /** Wall seconds from spawning ffmpeg to the last onFrame settling. */
  seconds: number;
}

const STDERR_TAIL_BYTES = 8192;
const STDERR_TAIL_LINES = 6;

/** Keeps the end of a text stream (ffmpeg's stderr can be long on a broken file). */
class TailBuffer {
  private text = '';
  push(chunk: Buffer | string) {
    this.text += chunk.toString();
    if (this.text.length > STDERR_TAIL_BYTES * 2) this.text = this.text.slice(-STDERR_TAIL_BYTES);
  }
  all(): string {
    return this.text;
  }
  lastLines(n = STDERR_TAIL_LINES): string {
    return lastLinesOf(this.text, n);
  }
}

/** The last non-empty lines of a process's stderr, joined on one line (for failures.jsonl). */
export function lastLinesOf(text: string, n = STDERR_TAIL_LINES): string {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-n)
    .join(' | ');
}

/** Tracks the last `frame=` of ffmpeg's `-progress` key=value stream. */
function watchProgress(stream: Readable): { frames(): number | null; ended(): boolean } {
  let frames: number | null = null;
  let ended = false;
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const m = /^frame=(\d+)\s*$/.exec(line);
      if (m) frames = Number(m[1]);
      else if (line.trim() === 'progress=end') ended = true;
    }
  });
  return { frames: () => frames, ended: () => ended };
}

const probeSchema = z.object({
  streams: z.array(z.object({ width: z.number().int(), height: z.number().int() }).passthrough()).min(1),
});

/** execa's result for a program that could not be started at all (missing, not executable): no exit, no signal. */
function neverStarted(r: { exitCode?: number; signal?: string; isCanceled: boolean }): boolean {
  return r.exitCode === undefined && r.signal === undefined && !r.isCanceled;
}

/** The coded size of the first video stream (what ffmpeg outputs with -noautorotate), or why it is not known. */
async function probeSize(spec: DecodeSpec): Promise<{ width: number; height: number } | string> {
  const execa = await loadExeca();
  const r = await execa(spec.ffprobePath, ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'json', spec.videoPath], {
    reject: false,
    cancelSignal: spec.signal,
    stdin: 'ignore',
  });
  if (neverStarted(r)) return `cannot run ffprobe (${spec.ffprobePath})`;
  if (r.exitCode !== 0) return `ffprobe exit ${r.exitCode}: ${lastLinesOf(String(r.stderr)) || 'no message'}`;
  try {
    return probeSchema.parse(parseBoundedJson(String(r.stdout))).streams[0];
  } catch {
    return 'ffprobe finds no video stream';
  }
}

/** The size-check filter instance's name; ffmpeg's log lines for it carry this name. */
const SIZE_CHECK_NAME = 'fpsweep_size_check';

/**
 * `crop` that passes a W×H frame untouched and refuses (width 0) a frame of any other size. `exact=1`:
 * without it, crop rounds an odd width or height down to the chroma grid (853x481 → 852x480 in 4:2:0).
 */
export function sizeCheckFilter(width: number, height: number): string {
  return `crop@${SIZE_CHECK_NAME}=w='if(eq(iw,${width})*eq(ih,${height}),iw,0)':h=ih:x=0:y=0:exact=1`;
}

/** ffmpeg failed because the frames are not the size meta.json gives (the size-check filter refused them). */
function isSizeCheckFailure(stderr: string): boolean {
  return stderr.includes(SIZE_CHECK_NAME);
}

export function ffmpegDecodeArgs(spec: Pick<DecodeSpec, 'videoPath' | 'threads' | 'width' | 'height'>, selected: readonly number[]): string[] {
  const graph = `[0:v:0]${sizeCheckFilter(spec.width, spec.height)},split=2[all][pick];[pick]select='${selectExpression(selected)}'[sel]`;
  return [
    '-hide_banner',
    '-nostdin',
    '-nostats',
    '-loglevel',
    'error',
    // Stop at the first decoding error instead of concealing it: a damaged frame is not the stored frame.
    '-xerror',
    '-progress',
    'pipe:3',
    '-threads',
    String(spec.threads),
    // Frames exactly as stored: no rotation applied (sizes are checked against meta.json instead).
    '-noautorotate',
    '-i',
    spec.videoPath,
    '-filter_complex',
    graph,
    // Output 0 (counted by -progress): every decoded frame, thrown away.
    '-map',
    '[all]',
    '-fps_mode',
    'passthrough',
    '-f',
    'null',
    '-',
    // Output 1: the selected frames, packed RGB on stdout. `direct`: one write per frame instead of one
    // per 32 KiB buffer (about 5% of the pipeline's CPU went to the extra writes and wake-ups).
    '-map',
    '[sel]',
    '-fps_mode',
    'passthrough',
    '-avioflags',
    'direct',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    'pipe:1',
  ];
}

export async function decodeSelectedFrames(spec: DecodeSpec): Promise<DecodeResult> {
  const selected = sortedUnique(spec.indices);
  if (selected.length === 0) throw new RangeError('decodeSelectedFrames needs at least one frame index');
  const last = selected[selected.length - 1];
  if (last >= spec.expectedFrames) {
    throw new RangeError(`frame index ${last} is outside the video's ${spec.expectedFrames} frames`);
  }
  const frameBytes = spec.width * spec.height * 3;
  const started = process.hrtime.bigint();
  const notStarted = () => new DecodeInterrupted(`the run is stopping: ${spec.videoPath} was not decoded`);
  if (spec.stop?.aborted) throw notStarted();
  const execa = await loadExeca();

  const kill = new AbortController();
  const onOuterAbort = () => kill.abort(spec.signal?.reason);
  const onStop = () => kill.abort(new Error('the run is stopping'));
  spec.signal?.addEventListener('abort', onOuterAbort, { once: true });
  spec.stop?.addEventListener('abort', onStop, { once: true });
  const forget = () => {
    spec.signal?.removeEventListener('abort', onOuterAbort);
    spec.stop?.removeEventListener('abort', onStop);
  };
  // Aborted before the listeners were there (a signal's 'abort' fires once): acted on all the same.
  if (spec.signal?.aborted) onOuterAbort();
  else if (spec.stop?.aborted) onStop();

  // Raw frame buffers are recycled: at most budget/frameBytes (+1) exist at once.
  const free: Buffer[] = [];
  const pending = new Set<Promise<void>>();
  let consumerError: unknown = null;
  const frameHeld = Math.min(frameBytes, spec.budget.limit);
  const takeBuffer = () => free.pop() ?? Buffer.allocUnsafeSlow(frameBytes);
  const recycle = (buf: Buffer) => {
    free.push(buf);
    spec.budget.release(frameHeld);
  };

  const asm = new FrameAssembler({
    frameBytes,
    frames: selected.length,
    nextBuffer: () => (spec.budget.tryAcquire(frameHeld) ? takeBuffer() : spec.budget.acquire(frameHeld).then(takeBuffer)),
    giveBack: recycle,
    onFrame: (buf) => {
      const index = selected[asm.delivered - 1];
      const p = (async () => spec.onFrame(index, buf))()
        .catch((err) => {
          if (consumerError === null) consumerError = err;
          asm.stop();
          kill.abort();
        })
        .finally(() => {
          pending.delete(p);
          recycle(buf);
        });
      pending.add(p);
    },
  });
  const transport = (spec.transport ?? defaultRawTransport()) === 'socket' ? await openSocketTransport(asm) : null;
  const raw = transport ?? pipeTransport(asm);
  if (kill.signal.aborted) {
    // Stopped or closed while the transport was made: ffmpeg is not started.
    raw.spawned(null);
    raw.stop();
    await raw.done;
    forget();
    if (spec.signal?.aborted) throw spec.signal.reason ?? new Error('decode aborted');
    throw notStarted();
  }

  const proc = execa(spec.ffmpegPath, ffmpegDecodeArgs(spec, selected), {
    stdio: ['ignore', raw.childStdout, 'pipe', 'pipe'],
    buffer: false,
    reject: false,
    cancelSignal: kill.signal,
    forceKillAfterDelay: 2000,
    // Its own process group: a signal to ours (a Ctrl-C, a scheduler signalling the job's group) reaches the worker,
    // which decides (its stop ends this decode: spec.stop); our own exit still ends it.
    detached: true,
  });
  const forgetAtExit = proc.pid !== undefined ? killGroupAtExit(proc.pid) : () => undefined;
  raw.spawned(raw.childStdout === 'pipe' ? (proc.stdout as unknown as Readable | null) : null);
  const stderr = new TailBuffer();
  proc.stderr!.on('data', (c: Buffer) => stderr.push(c));
  const progress = watchProgress(proc.stdio[3] as Readable);
  if (kill.signal.aborted) raw.stop();
  else kill.signal.addEventListener('abort', () => raw.stop(), { once: true });

  await raw.done;
  const { partialBytes } = asm.finish();
  const delivered = asm.delivered;
  const extraBytes = asm.extraBytes;
  if (consumerError !== null) kill.abort();
  const result = await proc.finally(forgetAtExit);
  spec.onDecoderExit?.();
  await Promise.allSettled([...pending]);
  forget();

  if (spec.signal?.aborted) throw spec.signal.reason ?? new Error('decode aborted');
  if (consumerError !== null) throw consumerError;

  if (neverStarted(result)) {
    throw new Error(`cannot run ffmpeg (${spec.ffmpegPath}): ${result.originalMessage ?? result.message}`);
  }
  const decoded = progress.frames();
  const whole =
    result.exitCode === 0 && progress.ended() && decoded === spec.expectedFrames && delivered === selected.length && partialBytes === 0 && extraBytes === 0;
  if (spec.stop?.aborted && !whole) {
    // Ended by our stop (SIGTERM, SIGKILL after 2 s, or its output closed first: EPIPE): none of it is the video's fault.
    throw new DecodeInterrupted(
      `ffmpeg on ${spec.videoPath} was ended: the run is stopping` + `${decoded !== null ? ` (after ${decoded} of ${spec.expectedFrames} frames)` : ''}`,
    );
  }
  const why = stderr.lastLines();
  if (stoppedBySignal(result)) {
    throw new DecodeInterrupted(
      `ffmpeg on ${spec.videoPath} was stopped by a signal from outside (exit ${result.exitCode ?? result.signal}` +
        `${decoded !== null ? `, after ${decoded} of ${spec.expectedFrames} frames` : ''})`,
    );
  }
  if (result.exitCode !== 0 && isSizeCheckFailure(stderr.all())) {
    const size = await probeSize(spec);
    throw new DecodeError(
      typeof size === 'string'
        ? `the video's frames are not ${spec.width}x${spec.height} as meta.json says (${spec.videoPath}; ${size})`
        : `the video's frames are ${size.width}x${size.height} but meta.json says ${spec.width}x${spec.height} (${spec.videoPath})`,
    );
  }
  if (result.exitCode !== 0) {
    throw new DecodeError(
      `ffmpeg failed on ${spec.videoPath} (exit ${result.exitCode ?? result.signal}` +
        `${decoded !== null ? `, after ${decoded} of ${spec.expectedFrames} frames` : ''}): ${why || 'no message'}`,
    );
  }
  if (decoded === null || !progress.ended()) {
    throw new DecodeError(`ffmpeg reported no final frame count for ${spec.videoPath}${why ? `: ${why}` : ''}`);
  }
  if (decoded !== spec.expectedFrames) {
    throw new DecodeError(`decoded ${decoded} frames but meta.json says n_frames = ${spec.expectedFrames}` + ` (${spec.videoPath})${why ? `: ${why}` : ''}`);
  }
  if (delivered !== selected.length || partialBytes !== 0 || extraBytes !== 0) {
    throw new DecodeError(
      `ffmpeg sent ${delivered} whole frames of ${spec.width}x${spec.height}` +
        `${partialBytes || extraBytes ? ` and ${partialBytes + extraBytes} stray bytes` : ''} for ${selected.length} selected` +
        ` (${spec.videoPath})${why ? `: ${why}` : ''}`,
    );
  }
  return { decodedFrames: decoded, deliveredFrames: delivered, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}
