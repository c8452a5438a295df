// The caption sample's videos root (issue 25, point 9), as data: four valid videos of two to four clips each, one
// video directory whose segments.json leaves a gap between two segments (the validator's `contiguous` rule), and one
// directory with clips but no segments.json (untracked). Each clip is a colour over a tone, so a viewer sees and hears
// the boundaries. Segment bounds fall on whole frames (10 fps), so the cut clips last exactly their segments.
export const CAPTION_SAMPLE_WIDTH = 160;
export const CAPTION_SAMPLE_HEIGHT = 96;
export const CAPTION_SAMPLE_FPS = 10;
export const CAPTION_SAMPLE_AUDIO_RATE = 16000;

export interface SampleClip {
  /** 1.. in order. */
  index: number;
  startS: number;
  endS: number;
  color: string;
  hz: number;
}

export interface SampleVideo {
  stem: string;
  clips: SampleClip[];
  /** What segments.json says wrongly, for the invalid directory; null for a valid one. */
  flaw: { segment: number; startShiftS: number; rule: 'contiguous' } | null;
  /** false: clips without segments.json (untracked). */
  tracked: boolean;
}

const COLORS = ['red', 'green', 'blue', 'yellow', 'magenta', 'cyan', 'white', 'orange'];
const TONES = [220, 330, 440, 550, 660, 880];

function video(stem: string, bounds: number[], k: number, flaw: SampleVideo['flaw'] = null, tracked = true): SampleVideo {
  const clips = bounds.slice(1).map((endS, i) => ({
    index: i + 1,
    startS: bounds[i],
    endS,
    color: COLORS[(k + i) % COLORS.length],
    hz: TONES[(k + 2 * i) % TONES.length],
  }));
  return { stem, clips, flaw, tracked };
}

export function planCaptionSample(): SampleVideo[] {
  return [
    video('video_a', [0, 3, 5.5, 8], 0),
    video('video_b', [0, 2.5, 6], 1),
    video('video_c', [0, 2, 4, 6.5, 9], 2),
    video('video_d', [0, 4, 7], 3),
    // segments.json moves segment 2's start 0.5 s later than segment 1's end: a gap.
    video('video_gap', [0, 3, 6], 4, { segment: 2, startShiftS: 0.5, rule: 'contiguous' }),
    video('untracked_extra', [0, 2, 4], 5, null, false),
  ];
}

export const durationOf = (v: SampleVideo) => v.clips[v.clips.length - 1].endS;
export const clipName = (index: number) => `clip_${String(index).padStart(4, '0')}`;

/** The segments.json of a video directory (SPEC-AVTIME-DATA §2's fields); times as planned, the flaw applied. */
export function segmentsDoc(v: SampleVideo, inputVideo: string): Record<string, unknown> {
  const round = (t: number) => Math.round(t * 1000) / 1000;
  return {
    input_video: inputVideo,
    duration_sec: durationOf(v),
    detectors: { asr: 'unavailable', scene: 'fpsweep caption-sample', audio_events: 'unavailable' },
    config: { maker: 'fpsweep avtime caption-sample', fps: CAPTION_SAMPLE_FPS, mp3_sidecar: true },
    candidates: { scene: v.clips.length - 1, asr: 0, audio: 0 },
    segments: v.clips.map((c) => {
      const start = v.flaw?.segment === c.index ? c.startS + v.flaw.startShiftS : c.startS;
      return {
        index: c.index,
        clip_path: `clips/${clipName(c.index)}.mp4`,
        start_sec: round(start),
        end_sec: round(c.endS),
        duration_sec: round(c.endS - start),
        boundary: c.index === 1 ? { source: 'start' } : { source: 'scene', confidence: 1 },
        labels: { audio: [`${c.hz} Hz tone`], visual: [`${c.color} screen`], joint: [] },
      };
    }),
  };
}

/** The complete video's lavfi drawing: each clip's colour filling the frame, each clip's tone, over its span. */
export function lavfiOf(v: SampleVideo): { videoFilter: string; audioExpression: string } {
  const on = (c: SampleClip) => `gte(t,${c.startS.toFixed(3)})*lt(t,${c.endS.toFixed(3)})`;
  return {
    videoFilter: v.clips.map((c) => `drawbox=x=0:y=0:w=iw:h=ih:color=${c.color}:t=fill:enable='${on(c)}'`).join(','),
    audioExpression: v.clips.map((c) => `${on(c)}*0.4*sin(2*PI*${c.hz}*t)`).join('+'),
  };
}
