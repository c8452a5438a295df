// A child stopped from outside (issue 43): a scheduler's cancel (Slurm's `scancel` with proctrack/linuxproc signals
// SIGTERM to every process of the job, our ffmpeg, ffprobe and cutters too) or a Ctrl-C ends it by SIGTERM, SIGINT or
// SIGHUP (ffmpeg catches them and exits 255). Its input is not at fault and the run is being stopped: what it was doing
// is no data failure; it stays to do, and the run drains.

const STOP_SIGNALS = new Set(['SIGTERM', 'SIGINT', 'SIGHUP']);

/**
 * Whether a child's end says a stop signal reached it: killed by SIGTERM, SIGINT or SIGHUP, or (`ffmpeg`: ffmpeg
 * catches them) exit 255, ffmpeg's status after catching one.
 */
export function stoppedFromOutside(result: { exitCode?: number; signal?: string }, opts: { ffmpeg?: boolean } = {}): boolean {
  return (result.signal !== undefined && STOP_SIGNALS.has(result.signal)) || (opts.ffmpeg === true && result.exitCode === 255);
}

/** A child (ffprobe, ffmpeg, a cutter) stopped from outside: not the input's failure; the caller drains the run. */
export class ChildStopped extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChildStopped';
  }
}

/** `${what} was stopped by a signal from outside (SIGTERM)`: the words of a ChildStopped. */
export function childStopped(what: string, result: { exitCode?: number; signal?: string }): ChildStopped {
  return new ChildStopped(`${what} was stopped by a signal from outside (${result.signal ?? `exit ${result.exitCode}`})`);
}
