// The cut sample (issue 27 point 7), as data: complete source videos with visible scene changes (a full-frame colour
// per shot) and pauses in the audio (a tone, silent over each pause), one shorter than the min segment. Each video
// says what the builtin cutter should make of it with the defaults, so the integration test checks the cut, not
// only its validity: a shot change inside a pause stays on the change, one near a pause moves to the pause's
// midpoint, two changes within the min gap are one boundary, and a long shot is split softly at a pause.
export const CUT_SAMPLE_WIDTH = 320;
export const CUT_SAMPLE_HEIGHT = 180;
export const CUT_SAMPLE_FPS = 25;
export const CUT_SAMPLE_AUDIO_RATE = 16000;
export const CUT_SAMPLE_TONE_HZ = 440;

export interface CutSampleShot {
  startS: number;
  endS: number;
  color: string;
}

export interface CutSampleVideo {
  /** The file's name in the sample folder. */
  file: string;
  durationS: number;
  shots: CutSampleShot[];
  /** Silent spans of the audio (s). */
  silences: [number, number][];
  /** A small box shown over this span: a visible change too small to be a scene change. */
  smallBox: [number, number] | null;
  /** Segment starts the builtin cutter makes with its defaults (s, 0 first). */
  expectedStarts: number[];
}

export function planCutSample(): CutSampleVideo[] {
  return [
    // Shorter than the min segment: one segment, although the shot changes in a pause.
    { file: 'cut_a_short.mp4', durationS: 4, shots: shots([0, 2, 4], ['red', 'blue']), silences: [[1.6, 2.4]], smallBox: null, expectedStarts: [0] },
    // Two shot changes but no room for two segments of 6 s: one segment.
    {
      file: 'cut_b_8s.mp4',
      durationS: 8,
      shots: shots([0, 3, 5.5, 8], ['green', 'yellow', 'green']),
      silences: [[2.7, 3.5]],
      smallBox: null,
      expectedStarts: [0],
    },
    // 7 s: the change (white → blue, the strongest) is inside a pause (kept there); 9.5 s: a weaker change within the
    // min gap of 7 s (clustered away);
    // 17 s: outside any pause, 1.4 s before the midpoint 18.4 of the pause 17.8–19.0 (shifted there).
    {
      file: 'cut_c_25s.mp4',
      durationS: 25,
      shots: shots([0, 7, 9.5, 17, 25], ['white', 'blue', 'cyan', 'magenta']),
      silences: [
        [6.6, 7.6],
        [11.5, 12.5],
        [17.8, 19.0],
      ],
      smallBox: null,
      expectedStarts: [0, 7, 18.4],
    },
    // A 25 s shot (8–33 s) split softly at the pause anchor 21 s (its admissible window is 14–24 s); the small box
    // (15–20 s) is a change below the threshold.
    {
      file: 'cut_d_40s.mp4',
      durationS: 40,
      shots: shots([0, 8, 33, 40], ['orange', 'gray', 'purple']),
      silences: [
        [7.7, 8.5],
        [20.5, 21.5],
        [27.0, 27.6],
      ],
      smallBox: [15, 20],
      expectedStarts: [0, 8, 21, 33],
    },
  ];
}

function shots(bounds: number[], colors: string[]): CutSampleShot[] {
  return colors.map((color, i) => ({ startS: bounds[i], endS: bounds[i + 1], color }));
}

export const CUT_SAMPLE_FILES: readonly string[] = planCutSample().map((v) => v.file);

const span = (a: number, b: number) => `gte(t,${a.toFixed(3)})*lt(t,${b.toFixed(3)})`;

/** The video's lavfi drawing: each shot's colour over its span (and the small box); the tone, silent over the pauses. */
export function cutSampleLavfi(v: CutSampleVideo): { videoFilter: string; audioExpression: string } {
  const fills = v.shots.map((s) => `drawbox=x=0:y=0:w=iw:h=ih:color=${s.color}:t=fill:enable='${span(s.startS, s.endS)}'`);
  if (v.smallBox) fills.push(`drawbox=x=20:y=20:w=24:h=16:color=white:t=fill:enable='${span(v.smallBox[0], v.smallBox[1])}'`);
  const silent = v.silences.map(([a, b]) => span(a, b)).join('+') || '0';
  return { videoFilter: fills.join(','), audioExpression: `(1-(${silent}))*0.4*sin(2*PI*${CUT_SAMPLE_TONE_HZ}*t)` };
}
