// ffmpeg for the builtin cutter: its log back (the signals pass reads it), a failure in ffmpeg's own words, and an
// abort that kills the process (the cut run's stop). The engine's runFfmpeg has neither the log nor the signal.
import { ffmpegBin } from '../../../media/ffmpeg';
import { childStopped, stoppedFromOutside } from '../../../media/stoppedChild';

/** The last lines of a log, enough to say why ffmpeg failed without flooding the per-video log. */
export function logTail(text: string, lines = 15): string {
  return text.trim().split(/\r?\n/).slice(-lines).join('\n');
}

/** Runs ffmpeg with `args`; resolves to its stderr (the log). A failure says `what` failed and ffmpeg's last words. */
export async function runFfmpegLog(args: readonly string[], what: string, signal?: AbortSignal): Promise<string> {
  signal?.throwIfAborted();
  const { execa } = await import('execa');
  const r = await execa(ffmpegBin(), args, { reject: false, stdin: 'ignore', stdout: 'ignore', cancelSignal: signal, maxBuffer: 256 * 1024 * 1024 });
  if (signal?.aborted) throw new Error(`ffmpeg stopped (the cut was stopped) while trying to ${what}`);
  // Stopped from outside (a scheduler's cancel signals every process of the job): no failure of the video (issue 43).
  if (stoppedFromOutside(r, { ffmpeg: true })) throw childStopped(`ffmpeg (trying to ${what})`, r);
  if (r.failed) {
    const why =
      (r as { code?: string }).code === 'ENOENT'
        ? `${ffmpegBin()} was not found; install ffmpeg (e.g. apt-get install -y ffmpeg) or set FFMPEG_BIN`
        : `exit ${r.exitCode ?? '?'}: ${logTail(String(r.stderr ?? '')) || r.shortMessage}`;
    throw new Error(`ffmpeg failed to ${what}: ${why}`);
  }
  return String(r.stderr ?? '');
}
