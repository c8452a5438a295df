// The clip's sound kept in step with its picture (issue 36 point 2): VS Code's Electron plays no AAC
// (microsoft/vscode#156558, #158972), so the viewer plays each clip's video muted and its MP3 sidecar in an <audio>
// element that follows the video. The video is the clock; this module (pure, no DOM) says what the audio must do
// after each event of the video: its rate, where to seek it, whether to play or pause it. viewer.ts applies the step.

/** A media element's clock as the DOM reports it (HTMLMediaElement's currentTime, paused, playbackRate). */
export interface MediaClock {
  time: number;
  paused: boolean;
  rate: number;
}

export interface VideoClock extends MediaClock {
  /** A seek is under way (the `seeking` event until `seeked`): the audio waits, paused, at the target. */
  seeking: boolean;
  /** The video stalled for data (`waiting` until `playing`): the audio waits with it. */
  waiting: boolean;
}

export interface AudioClock extends MediaClock {
  /** The sidecar's duration in seconds (NaN before its metadata): an MP3 ends a little before or after the AAC track. */
  duration: number;
}

/** What to do to the audio: null leaves that part as it is. */
export interface SyncStep {
  seekTo: number | null;
  play: boolean | null;
  rate: number | null;
}

/** While both play, the audio is re-placed only past this drift (a seek of the audio is heard: not every tick). */
export const PLAYING_DRIFT_S = 0.05;
/** At a seek, a play or a pause the audio is placed to within this, so it starts in step. */
export const PLACED_DRIFT_S = 0.01;

/** The events after which the audio is placed exactly rather than within the playing tolerance. */
const PLACING_EVENTS = new Set(['seeking', 'seeked', 'play', 'playing', 'pause', 'loadedmetadata']);

export function followVideo(video: VideoClock, audio: AudioClock, event: string): SyncStep {
  const end = Number.isFinite(audio.duration) && audio.duration > 0 ? audio.duration : Infinity;
  const target = Math.min(Math.max(video.time, 0), end);
  const running = !video.paused && !video.seeking && !video.waiting && video.time < end;
  const tolerance = PLACING_EVENTS.has(event) || !running ? PLACED_DRIFT_S : PLAYING_DRIFT_S;
  return {
    seekTo: Math.abs(audio.time - target) > tolerance ? target : null,
    play: running === audio.paused ? running : null,
    rate: audio.rate !== video.rate ? video.rate : null,
  };
}

/** The drift the e2e measures and the viewer shows: audio − video, seconds (0 when the audio has ended at its end). */
export function drift(video: MediaClock, audio: AudioClock): number {
  const end = Number.isFinite(audio.duration) && audio.duration > 0 ? audio.duration : Infinity;
  return audio.time - Math.min(video.time, end);
}
