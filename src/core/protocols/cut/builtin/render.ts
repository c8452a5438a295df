// The clips of the builtin cutter: one ffmpeg per segment writes the clip (H.264 + AAC) and its mp3 sidecar. Accurate
// cuts: `-ss` before `-i` seeks to the keyframe before the start and ffmpeg decodes and drops up to the exact start
// (accurate_seek, on by default when re-encoding); `-t` after `-i` bounds each output, so a clip lasts its segment
// to within a frame (the validator allows 0.25 s). One thread for decoding, filtering and x264: the run type runs many
// videos at once, so jobs × cores holds. Bit-exact flags and no metadata: the same source gives the same bytes.
import { BITEXACT_AUDIO, BITEXACT_MUX, BITEXACT_VIDEO } from '../../../media/ffmpeg';
import { runFfmpegLog } from './exec';

export interface ClipSpan {
  startSec: number;
  endSec: number;
  /** Absolute paths. */
  mp4: string;
  mp3: string | null;
}

const BITEXACT = [...BITEXACT_MUX, ...BITEXACT_AUDIO];

/** Pure: the arguments that cut one clip (and its sidecar when `mp3` is set) from `input`. */
export function clipArgs(input: string, span: ClipSpan): string[] {
  const t = (s: number) => s.toFixed(3);
  const length = ['-t', t(span.endSec - span.startSec)];
  const args = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-threads', '1', '-ss', t(span.startSec), '-i', input];
  args.push(
    ...length,
    '-map',
    '0:v:0',
    '-map',
    '0:a:0',
    '-filter_threads',
    '1',
    // x264 needs even sides in 4:2:0; a no-op for the usual even sizes.
    '-vf',
    'scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuv420p',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '23',
    '-threads',
    '1',
    '-c:a',
    'aac',
    '-b:a',
    '128k',
    ...BITEXACT,
    ...BITEXACT_VIDEO,
    '-movflags',
    '+faststart',
    span.mp4,
  );
  if (span.mp3) args.push(...length, '-map', '0:a:0', '-vn', '-c:a', 'libmp3lame', '-b:a', '128k', ...BITEXACT, '-write_xing', '0', span.mp3);
  return args;
}

/** Cuts one clip (and its sidecar). Throws with ffmpeg's words; honors `signal`. */
export async function renderClip(input: string, span: ClipSpan, signal?: AbortSignal): Promise<void> {
  await runFfmpegLog(clipArgs(input, span), `cut ${span.mp4} (${span.startSec.toFixed(3)}–${span.endSec.toFixed(3)} s)`, signal);
}
