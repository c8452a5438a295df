// What the AVTime sample bench holds, decided before anything is encoded: per video a visual
// track (coloured screens, tiling the timeline, plus a white square passing over them) and an audio
// track (tones and silence, tiling it, plus a beep over them), the reference events of both axes,
// and the private queries of SPEC-AVTIME §5 drawn from those events. Pure and seeded: same plan every run.
import { SeededRandom } from '../../../seededRandom';

export type Axis = 'A' | 'V';
export type Relation = 'before' | 'after' | 'overlap';

/** A reference event: half-open [startMs, endMs) on one axis. */
export interface RefEvent {
  axis: Axis;
  startMs: number;
  endMs: number;
  caption: string;
}

export type VisualLook = { kind: 'fill'; color: 'red' | 'green' | 'blue' | 'yellow' | 'black' } | { kind: 'square' };
export type AudioSound = { kind: 'tone'; hz: number } | { kind: 'rise'; fromHz: number; toHz: number } | { kind: 'silence' } | { kind: 'beep'; hz: number };

export interface Segment<L> {
  startMs: number;
  endMs: number;
  look: L;
  caption: string;
}

export interface SampleAvVideo {
  videoId: string;
  stableId: string;
  rowId: string;
  /** The planned length; the bench records what ffprobe reads (duration_ms, audited). */
  plannedMs: number;
  visual: Array<Segment<VisualLook>>;
  audio: Array<Segment<AudioSound>>;
}

export type Query =
  | { query_id: string; video_id: string; axis: Axis; direction: 't2e'; time_ms: number; reference_captions: string[] }
  | { query_id: string; video_id: string; axis: Axis; direction: 'e2t'; reference_caption: string; reference_interval_ms: [number, number] }
  | {
      query_id: string;
      video_id: string;
      axis: Axis;
      direction: 'e2e';
      events: [{ caption: string; interval_ms: [number, number] }, { caption: string; interval_ms: [number, number] }];
      relation: Relation;
    };

export const SAMPLE_VIDEO_COUNT = 7;
export const SAMPLE_WIDTH = 96;
export const SAMPLE_HEIGHT = 64;
export const SAMPLE_FPS = 10;
export const SAMPLE_AUDIO_RATE = 16000;
const SEED = 0xa7_7153;
const STEP_MS = 100; // every boundary on a frame (10 fps)

const FILLS = [
  { color: 'red', caption: 'the screen is red' },
  { color: 'green', caption: 'the screen is green' },
  { color: 'blue', caption: 'the screen is blue' },
  { color: 'yellow', caption: 'the screen is yellow' },
  { color: 'black', caption: 'the picture goes dark' },
] as const;
const SOUNDS: ReadonlyArray<{ sound: AudioSound; caption: string }> = [
  { sound: { kind: 'tone', hz: 220 }, caption: 'a low tone plays' },
  { sound: { kind: 'tone', hz: 880 }, caption: 'a high tone plays' },
  { sound: { kind: 'rise', fromHz: 300, toHz: 900 }, caption: 'a tone rises in pitch' },
  { sound: { kind: 'silence' }, caption: 'the sound goes silent' },
];
const SQUARE_CAPTION = 'a white square moves across the screen';
const BEEP_CAPTION = 'a short beep repeats';

/** `n` cut points (multiples of STEP_MS) tiling [0, total) into pieces of at least `minMs`. */
function tiling(rng: SeededRandom, totalMs: number, n: number, minMs: number): Array<[number, number]> {
  const slots = totalMs / STEP_MS - n * (minMs / STEP_MS);
  const extra = Array.from({ length: n - 1 }, () => rng.int(slots + 1)).sort((a, b) => a - b);
  const bounds = [0];
  for (let i = 0; i < n - 1; i++) bounds.push((i + 1) * minMs + extra[i] * STEP_MS);
  bounds.push(totalMs);
  return bounds.slice(0, -1).map((s, i) => [s, bounds[i + 1]]);
}

/** An overlay of 800–1500 ms, starting ≥ 200 ms in and ending ≥ 200 ms before the end (over one or more pieces). */
function overlay(rng: SeededRandom, totalMs: number): [number, number] {
  const len = 800 + rng.int(8) * STEP_MS;
  const start = STEP_MS * (2 + rng.int((totalMs - len) / STEP_MS - 3));
  return [start, start + len];
}

export function planAvtimeSample(): SampleAvVideo[] {
  const rng = new SeededRandom(SEED);
  const videos: SampleAvVideo[] = [];
  for (let k = 0; k < SAMPLE_VIDEO_COUNT; k++) {
    const plannedMs = 3000 + rng.int(31) * STEP_MS; // 3.0–6.0 s
    const fills = rng.shuffle(FILLS).slice(0, 3 + rng.int(3));
    const sounds = rng.shuffle(SOUNDS).slice(0, 2 + rng.int(3));
    const visual: Array<Segment<VisualLook>> = tiling(rng, plannedMs, fills.length, 500).map(([s, e], i) => ({
      startMs: s,
      endMs: e,
      look: { kind: 'fill', color: fills[i].color },
      caption: fills[i].caption,
    }));
    const audio: Array<Segment<AudioSound>> = tiling(rng, plannedMs, sounds.length, 600).map(([s, e], i) => ({
      startMs: s,
      endMs: e,
      look: sounds[i].sound,
      caption: sounds[i].caption,
    }));
    const [vs, ve] = overlay(rng, plannedMs);
    visual.push({ startMs: vs, endMs: ve, look: { kind: 'square' }, caption: SQUARE_CAPTION });
    const [as, ae] = overlay(rng, plannedMs);
    audio.push({ startMs: as, endMs: ae, look: { kind: 'beep', hz: 1500 }, caption: BEEP_CAPTION });
    const n = String(k + 1).padStart(3, '0');
    videos.push({ videoId: `avs_${n}`, stableId: `avtime-sample-${n}`, rowId: `avtime_sample_${n}`, plannedMs, visual, audio });
  }
  return videos;
}

export function referenceEvents(v: SampleAvVideo): RefEvent[] {
  const ev =
    (axis: Axis) =>
    (s: Segment<unknown>): RefEvent => ({ axis, startMs: s.startMs, endMs: s.endMs, caption: s.caption });
  return [...v.audio.map(ev('A')), ...v.visual.map(ev('V'))].sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs || a.axis.localeCompare(b.axis));
}

export function relationOf(a: RefEvent, b: RefEvent): Relation {
  if (a.endMs <= b.startMs) return 'before';
  if (a.startMs >= b.endMs) return 'after';
  return 'overlap';
}

/**
 * Per video and axis: t2e at the middle of the first piece and inside the overlay (two captions
 * active); e2t for every event; e2e for first-vs-last piece (before), last-vs-first (after) and the
 * overlay vs the piece it starts in (overlap).
 */
export function planQueries(v: SampleAvVideo): Query[] {
  const out: Query[] = [];
  for (const axis of ['A', 'V'] as const) {
    const events = referenceEvents(v).filter((e) => e.axis === axis);
    const pieces = events.filter((e) => e.caption !== SQUARE_CAPTION && e.caption !== BEEP_CAPTION);
    const over = events.find((e) => e.caption === SQUARE_CAPTION || e.caption === BEEP_CAPTION)!;
    const id = (dir: string, i: number) => `${v.videoId}_${axis}_${dir}_${i}`;
    const first = pieces[0];
    const last = pieces[pieces.length - 1];
    const times = [Math.floor((first.startMs + first.endMs) / 2), over.startMs + STEP_MS];
    times.forEach((t, i) => {
      const active = events.filter((e) => e.startMs <= t && t < e.endMs).map((e) => e.caption);
      out.push({ query_id: id('t2e', i), video_id: v.videoId, axis, direction: 't2e', time_ms: t, reference_captions: active });
    });
    events.forEach((e, i) => {
      out.push({
        query_id: id('e2t', i),
        video_id: v.videoId,
        axis,
        direction: 'e2t',
        reference_caption: e.caption,
        reference_interval_ms: [e.startMs, e.endMs],
      });
    });
    const container = pieces.find((p) => p.startMs <= over.startMs && over.startMs < p.endMs)!;
    const pairs: Array<[RefEvent, RefEvent]> = [
      [first, last],
      [last, first],
      [over, container],
    ];
    pairs.forEach(([a, b], i) => {
      out.push({
        query_id: id('e2e', i),
        video_id: v.videoId,
        axis,
        direction: 'e2e',
        events: [
          { caption: a.caption, interval_ms: [a.startMs, a.endMs] },
          { caption: b.caption, interval_ms: [b.startMs, b.endMs] },
        ],
        relation: relationOf(a, b),
      });
    });
  }
  return out;
}
