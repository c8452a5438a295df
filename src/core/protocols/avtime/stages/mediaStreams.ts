// Every target input's media must hold a video stream and an audio stream (SPEC-AVTIME §2): the reference
// asserts an audio track (use_audio_in_video), and a server given a video without one fails that request.
// ffprobe reads each file once; every file that lacks a stream (or cannot be read) becomes a problem on the
// line of the record that names it, so the inputs fail closed listing all of them at once.
import { mapBounded } from '../../../runner/mapBounded';
import { InputError, type LineProblem } from '../../../errors';
import { parseBoundedJson } from '../../../io/boundedJson';

export interface MediaStreams {
  video: boolean;
  audio: boolean;
}

/** A probe: the stream kinds of a file, or why it could not be read. */
export type ProbeStreams = (file: string) => Promise<MediaStreams | { unreadable: string }>;

/** The file named by a record: `file:line` is the record (test or target-input line) the user fixes. */
export interface MediaRef {
  file: string;
  line: number;
  media: string;
  /** What else helps find it, e.g. "video_id 'v1', inventory.jsonl:3". */
  context: string;
}

const ffprobeBin = () => process.env.FFPROBE_BIN || 'ffprobe';

/** ffprobe's stream kinds. A cover picture (disposition attached_pic) is an image, not a video stream. */
export const ffprobeStreams: ProbeStreams = async (file) => {
  const { execa } = await import('execa');
  const args = ['-v', 'error', '-show_entries', 'stream=codec_type:stream_disposition=attached_pic', '-of', 'json', file];
  const r = await execa(ffprobeBin(), args, { reject: false, stdin: 'ignore' });
  if (r.failed) {
    if ((r as { code?: string }).code === 'ENOENT') {
      throw new InputError(`${ffprobeBin()} was not found: the inputs check every media file's streams with it; install ffmpeg or set FFPROBE_BIN`);
    }
    return { unreadable: String(r.stderr).trim().split('\n').pop() || `ffprobe exit ${r.exitCode ?? '?'}` };
  }
  let streams: Array<{ codec_type?: string; disposition?: { attached_pic?: number } }>;
  try {
    streams = (parseBoundedJson(r.stdout) as { streams?: typeof streams }).streams ?? [];
  } catch {
    return { unreadable: 'ffprobe printed no JSON' };
  }
  return {
    video: streams.some((s) => s.codec_type === 'video' && !s.disposition?.attached_pic),
    audio: streams.some((s) => s.codec_type === 'audio'),
  };
};

/**
 * Probes every distinct media file (at most `concurrency` ffprobe processes at once) and returns one problem
 * per record whose file lacks a stream or cannot be read, in the order of `refs`.
 */
export async function mediaStreamProblems(refs: readonly MediaRef[], probe: ProbeStreams = ffprobeStreams, concurrency = 4): Promise<LineProblem[]> {
  const files = [...new Set(refs.map((r) => r.media))];
  const probed = await mapBounded(files, concurrency, (f) => probe(f));
  const results = new Map(files.map((f, i) => [f, probed[i]]));
  const problems: LineProblem[] = [];
  for (const ref of refs) {
    const r = results.get(ref.media)!;
    const at = (what: string) => problems.push({ file: ref.file, line: ref.line, message: `media '${ref.media}' (${ref.context}) ${what}` });
    if ('unreadable' in r) at(`cannot be read by ffprobe (${r.unreadable}); every input must be a video with an audio track`);
    else if (!r.video || !r.audio) {
      const lacks = [!r.video && 'video', !r.audio && 'audio'].filter(Boolean).join(' or ');
      at(
        `has no ${lacks} stream (ffprobe); every input needs a video and an audio stream (the reference asserts an audio track, ` +
          'and the server fails a request without one): point its inventory row at a file with both, or remove its test and inventory rows',
      );
    }
  }
  return problems;
}
