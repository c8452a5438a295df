// Encodes one sample video with ffmpeg from frames drawn here, and reads back what was stored.
import type { Writable } from 'node:stream';
import { z } from 'zod';
import { codeRows } from './frameCode';
import { plannedTimestamp, type SampleVideo } from './plan';
import type { VideoMeta } from '../package/schemas';
import { BITEXACT_MUX, FFMPEG_QUIET, ffmpegBin, ffprobeBin, x264OneThread } from '../../../media/ffmpeg';
import { parseBoundedJson } from '../../../io/boundedJson';

// FFMPEG_BIN / FFPROBE_BIN are read at each call so a test (or a user) can point them elsewhere.

// execa 9 is ESM-only: a dynamic import loads it natively both under tsx (mocha) and in the esbuild
// bundle, where a static import would be turned into a require of its ESM-only dependencies.
const loadExeca = () => import('execa').then((m) => m.execa);

/**
 * Pipes greyscale frames into libx264 (yuv420p). Each frame goes in as its two distinct rows
 * (codeRows) and `scale=…:flags=neighbor` repeats them to the stored size: the stored pixels are
 * exactly drawFrame's, at a fraction of the pipe traffic. Timestamps are set in milliseconds by `setpts`
 * (late starts and irregular spacing included); `-fps_mode passthrough -r 1000` keeps them as set
 * (without `-r`, ffmpeg 5 rounds them to the input frame rate). One x264 thread: with frame threads
 * the bytes would depend on the core count; callers run several encodes side by side instead.
 */
export async function encodeSampleVideo(v: SampleVideo, file: string): Promise<void> {
  const filters = [`scale=${v.width}:${v.height}:flags=neighbor`, `settb=1/1000,setpts=${v.startMs}+N*${v.spacingMs}+${v.jitterMs}*mod(N\\,3)`].join(',');
  const args = [
    ...FFMPEG_QUIET,
    '-f',
    'rawvideo',
    '-pix_fmt',
    'gray',
    '-s',
    `${v.width}x2`,
    '-framerate',
    `1000/${v.spacingMs}`,
    '-i',
    'pipe:0',
    '-vf',
    filters,
    ...x264OneThread(23),
    '-fps_mode',
    'passthrough',
    '-r',
    '1000',
    '-video_track_timescale',
    '1000',
    ...BITEXACT_MUX,
    '-movflags',
    '+faststart',
    file,
  ];
  const execa = await loadExeca();
  const proc = execa(ffmpegBin(), args, { stdin: 'pipe', stdout: 'ignore', stderr: 'pipe', reject: false });
  // Resolves when ffmpeg is gone for any reason (exit, crash, not found): a write loop waiting for
  // 'drain' must never outlive it, or the process would end with this promise still pending.
  const exited = proc.then(() => undefined);
  const stdin = proc.stdin!;
  let pipeError: Error | null = null;
  stdin.on('error', (err) => {
    pipeError = err;
  }); // EPIPE when ffmpeg dies; its stderr says why
  try {
    for (let k = 0; k < v.nFrames && !pipeError && !stdin.destroyed; k++) {
      const frame = codeRows(v.width, { frameIndex: k, videoTag: v.tag });
      if (!stdin.write(frame)) await Promise.race([drained(stdin), exited]);
    }
  } finally {
    stdin.end();
  }
  const result = await proc;
  if (result.failed || pipeError) {
    throw new Error(`ffmpeg failed to encode sample video ${v.hash}: ${describeFailure(result, pipeError)}`);
  }
}

function describeFailure(result: { code?: string; exitCode?: number; stderr?: unknown; shortMessage?: string }, pipeError: Error | null): string {
  if (result.code === 'ENOENT') return `${ffmpegBin()} was not found; install ffmpeg (e.g. apt-get install -y ffmpeg) or set FFMPEG_BIN`;
  const stderr = String(result.stderr ?? '').trim();
  return `exit ${result.exitCode ?? '?'}: ${stderr || result.shortMessage || pipeError?.message || 'no message'}`;
}

/** Resolves when the stream drains, closes or fails, leaving no listener behind. */
function drained(stream: Writable): Promise<void> {
  if (stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      stream.off('error', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
    stream.on('error', done);
  });
}

const probeSchema = z.object({
  frames: z.array(
    z
      .object({
        pts_time: z.string().optional(),
        best_effort_timestamp_time: z.string().optional(),
      })
      .passthrough(),
  ),
  streams: z
    .array(
      z
        .object({
          width: z.number().int(),
          height: z.number().int(),
          duration: z.string().optional(),
        })
        .passthrough(),
    )
    .min(1),
});

export interface ProbedVideo {
  width: number;
  height: number;
  durationS: number;
  /** Presentation time of every decoded frame, in decode order (ascending without B-frames). */
  timestamps: number[];
}

/** What ffprobe reports for the frames of a video file: the truth meta.json is written from. */
export async function probeVideo(file: string): Promise<ProbedVideo> {
  const execa = await loadExeca();
  const probe = await execa(
    ffprobeBin(),
    ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height,duration:frame=pts_time,best_effort_timestamp_time', '-of', 'json', file],
    { reject: false },
  );
  if (probe.failed) {
    const why =
      (probe as { code?: string }).code === 'ENOENT'
        ? `${ffprobeBin()} was not found; install ffmpeg (it brings ffprobe) or set FFPROBE_BIN`
        : String(probe.stderr).trim() || probe.shortMessage;
    throw new Error(`ffprobe could not read ${file}: ${why}`);
  }
  const parsed = probeSchema.parse(parseBoundedJson(probe.stdout));
  const timestamps = parsed.frames.map((f, i) => {
    const t = Number(f.best_effort_timestamp_time ?? f.pts_time);
    if (!Number.isFinite(t)) throw new Error(`${file}: ffprobe gave no timestamp for frame ${i}`);
    return t;
  });
  const s = parsed.streams[0];
  return { width: s.width, height: s.height, durationS: Number(s.duration ?? NaN), timestamps };
}

/** meta.json (SPEC §1) from what ffprobe read; checks it against the plan so a drift fails loudly. */
export function metaFromProbe(v: SampleVideo, probed: ProbedVideo): VideoMeta {
  const problems: string[] = [];
  if (probed.width !== v.width || probed.height !== v.height) problems.push(`size ${probed.width}x${probed.height}, planned ${v.width}x${v.height}`);
  if (probed.timestamps.length !== v.nFrames) problems.push(`${probed.timestamps.length} frames, planned ${v.nFrames}`);
  else {
    const k = probed.timestamps.findIndex((t, i) => Math.abs(t - plannedTimestamp(v, i)) > 1e-6);
    if (k >= 0) problems.push(`frame ${k} at ${probed.timestamps[k]} s, planned ${plannedTimestamp(v, k)} s`);
  }
  if (problems.length) throw new Error(`sample video ${v.hash} was not stored as planned: ${problems.join('; ')}`);
  const n = probed.timestamps.length;
  // The span the frames cover, each shown for one planned spacing. (The container's own duration
  // gives the last frame 1 ms, an artefact of the 1 ms time base.)
  const durationS = probed.timestamps[n - 1] - probed.timestamps[0] + v.spacingMs / 1000;
  return {
    hash: v.hash,
    width: probed.width,
    height: probed.height,
    duration_s: Math.round(durationS * 1000) / 1000,
    n_frames: n,
    timestamps: probed.timestamps,
    too_short: n <= 32,
  };
}
