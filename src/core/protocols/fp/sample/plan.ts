// What the sample package holds, decided before any video is encoded: a pure function of the scale.
// Tests read the same plan (`describeSample`) as ground truth instead of hard-coding counts.
import { createHash } from 'node:crypto';
import { optionLetter } from '../rules';
import type { Item, ManifestRow } from '../package/schemas';
import { SeededRandom } from '../../../seededRandom';
import { QUESTION_POOLS, XSS_OPTIONS, XSS_QUESTION } from './questions';
import { MAX_CODE } from './frameCode';
import { PLANTED_BENCHMARK, PLANTED_EFFECTS, PLANTED_QUESTIONS_PER_VIDEO, PLANTED_VIDEOS, plantedQuestion } from './planted';

/** Bump when the package's content changes; caches of generated packages key on it. */
export const SAMPLE_GENERATOR_VERSION = 2;
export const SAMPLE_SEED = 20454;
export const SAMPLE_BENCHMARKS = ['MVBench', 'NExTQA', 'EgoSchema', 'LVBench', 'TimeScope'] as const;

/** One stored video: frame k is shown at (startMs + k·spacingMs + jitterMs·(k mod 3)) / 1000 s. */
export interface SampleVideo {
  hash: string;
  /** The video tag drawn in every frame's top half (see frameCode.ts). */
  tag: number;
  width: number;
  height: number;
  nFrames: number;
  startMs: number;
  spacingMs: number;
  jitterMs: number;
  /** min(width, height): 720 up to 30 min, 480 beyond. */
  storedShortSide: 720 | 480;
  /** Longer than 600 s: unless square, the fps1 grid exceeds the cap (582 for 16:9, 743 for 4:3),
   *  so fps1/fps2 are capped and fps0.25 is not. */
  long: boolean;
  tooShort: boolean;
  /** The first frame's timestamp is not 0. */
  lateStart: boolean;
  /** Frame spacing is not constant. */
  vfr: boolean;
  /** width == height: the fps cap is 1024 frames, and fps2 of a long one overflows 65,536 tokens. */
  square: boolean;
  /** The manifest rows that point at this video (a video may serve two benchmarks). */
  uses: Array<{ benchmark: string; video_id: string }>;
}

export type MissingVideo = 'no_manifest_row' | 'no_folder';

export interface SampleItem extends Item {
  /** The stored video's hash, or null when the item's video is missing. */
  hash: string | null;
  missing: MissingVideo | null;
}

export interface ExistingRow {
  benchmark: string;
  item_id: string;
  condition: string;
}

export interface SamplePlan {
  scale: number;
  benchmarks: string[];
  videos: SampleVideo[];
  items: SampleItem[];
  manifest: ManifestRow[];
  /** The manifest row whose <hash>/ folder is not in the package (not in any shard either). */
  missingFolderHashes: string[];
  /** Base-condition rows that already exist in results/conditions_results.csv. */
  existing: ExistingRow[];
  xssItemId: string;
}

interface VideoRecipe {
  benchmark: string;
  width: number;
  height: number;
  nFrames: number;
  spacingMs: number;
  startMs?: number;
  jitterMs?: number;
  questions: number;
  /** Also used by a second benchmark with its own video_id and questions. */
  alsoIn?: { benchmark: string; questions: number };
  /** Conditions whose rows exist already, for the first `n` questions of this video. */
  existing?: Array<{ condition: string; n: number }>;
}

/** An MVBench clip (short, 2 fps, never capped) whose every question already has its v_blind and v_32 rows. */
function mvbenchClip(width: number, height: number, nFrames: number, questions: number, more: Partial<VideoRecipe> = {}): VideoRecipe {
  const existing = [
    { condition: 'v_blind', n: questions },
    { condition: 'v_32', n: questions },
  ];
  return { benchmark: 'MVBench', width, height, nFrames, spacingMs: 500, questions, existing, ...more };
}

// Stored videos are "2 fps or 1024 frames max": short videos at 2 fps (500 ms), long ones 1024 frames.
const RECIPES: VideoRecipe[] = [
  // MVBench: short clips, never capped; one too_short, one late start, one portrait, one 4:3.
  mvbenchClip(1280, 720, 40, 3),
  mvbenchClip(960, 720, 60, 3),
  mvbenchClip(720, 1280, 36, 2),
  mvbenchClip(1280, 720, 24, 2),
  mvbenchClip(1280, 720, 50, 2, { startMs: 1500 }),
  // Shared by MVBench and NExTQA (MVBench reuses NExTQA clips), with irregular frame spacing.
  mvbenchClip(960, 720, 80, 2, { jitterMs: 100, alsoIn: { benchmark: 'NExTQA', questions: 3 } }),
  { benchmark: 'NExTQA', width: 1280, height: 720, nFrames: 90, spacingMs: 500, questions: 3 },
  // EgoSchema: 3-minute clips at 2 fps.
  { benchmark: 'EgoSchema', width: 1280, height: 720, nFrames: 360, spacingMs: 500, questions: 3 },
  // LVBench: long. Stored-480 (2048 s at 0.5 fps) with some v_32 rows for the reuse rule; stored-720 (819 s).
  { benchmark: 'LVBench', width: 854, height: 480, nFrames: 1024, spacingMs: 2000, questions: 4, existing: [{ condition: 'v_32', n: 2 }] },
  { benchmark: 'LVBench', width: 1280, height: 720, nFrames: 1024, spacingMs: 800, questions: 3 },
  // TimeScope: long portrait stored-720 (717 s), long 4:3 stored-480 starting late (1949 s), one short.
  { benchmark: 'TimeScope', width: 720, height: 1280, nFrames: 1024, spacingMs: 700, questions: 3 },
  { benchmark: 'TimeScope', width: 640, height: 480, nFrames: 1024, spacingMs: 1900, startMs: 3000, questions: 3, existing: [{ condition: 'v_32', n: 1 }] },
  { benchmark: 'TimeScope', width: 1280, height: 720, nFrames: 240, spacingMs: 500, questions: 2 },
  // Square and long (614 s): at 224x224 the cap is 1024 frames, so fps2 sends 1024 frames (~67.6k
  // tokens) and a 65,536-token server refuses it (SPEC §2.5): the dry run's context_refusals.
  { benchmark: 'TimeScope', width: 720, height: 720, nFrames: 1024, spacingMs: 600, questions: 2 },
];

const VIDEO_ID_PREFIX: Record<string, string> = {
  MVBench: 'mvb_clip_',
  NExTQA: 'nextqa_',
  EgoSchema: 'ego_',
  LVBench: 'lvb_',
  TimeScope: 'ts_',
};

const LONG_SECONDS = 600;
const STORED_480_AFTER_SECONDS = 30 * 60;

function hashOf(tag: number): string {
  return createHash('sha256').update(`fpsweep-sample/${SAMPLE_SEED}/${tag}`).digest('hex').slice(0, 24);
}

/** Planned presentation time (s) of frame k; ffprobe must report exactly this after encoding. */
export function plannedTimestamp(v: Pick<SampleVideo, 'startMs' | 'spacingMs' | 'jitterMs'>, k: number): number {
  return (v.startMs + k * v.spacingMs + v.jitterMs * (k % 3)) / 1000;
}

export interface PlanSampleOptions {
  /** Add the four planted benchmarks (planted.ts) for the findings demo: 480 more items on 12 more videos. */
  planted?: boolean;
}

export function planSample(scale = 1, opts: PlanSampleOptions = {}): SamplePlan {
  if (!Number.isInteger(scale) || scale < 1) throw new RangeError(`scale must be a whole number ≥ 1, got ${scale}`);
  const rnd = new SeededRandom(SAMPLE_SEED);
  const videos: SampleVideo[] = [];
  const items: SampleItem[] = [];
  const manifest: ManifestRow[] = [];
  const existing: ExistingRow[] = [];
  const videoCount: Record<string, number> = {};
  const itemCount: Record<string, number> = {};
  const questionCursor: Record<string, number> = {};
  const letterQueue: Record<string, number[]> = {};

  const nextVideoId = (bench: string) => {
    videoCount[bench] = (videoCount[bench] ?? 0) + 1;
    return `${VIDEO_ID_PREFIX[bench]}${String(videoCount[bench]).padStart(4, '0')}`;
  };
  const nextItemId = (bench: string) => {
    itemCount[bench] = (itemCount[bench] ?? 0) + 1;
    return `${bench}_${String(itemCount[bench]).padStart(4, '0')}`;
  };
  // Answers cycle through shuffled letter sets so every letter is used about equally.
  const nextAnswerIndex = (bench: string, nOptions: number) => {
    const queue = (letterQueue[bench] ??= []);
    if (queue.length === 0) queue.push(...rnd.shuffle([...Array(nOptions).keys()]));
    return queue.shift()!;
  };
  const makeItem = (
    bench: string,
    videoId: string,
    hash: string | null,
    missing: MissingVideo | null,
    template?: { question: string; options: string[] },
  ): SampleItem => {
    const pool = QUESTION_POOLS[bench];
    const cursor = questionCursor[bench] ?? 0;
    questionCursor[bench] = cursor + 1;
    const t = template ?? pool[cursor % pool.length];
    const answerIndex = nextAnswerIndex(bench, t.options.length);
    const [correct, ...wrong] = t.options;
    const shuffledWrong = rnd.shuffle(wrong);
    const options = [...shuffledWrong.slice(0, answerIndex), correct, ...shuffledWrong.slice(answerIndex)];
    return {
      item_id: nextItemId(bench),
      benchmark: bench,
      video_id: videoId,
      question: t.question,
      options,
      answer: optionLetter(answerIndex),
      hash,
      missing,
    };
  };

  let xssItemId = '';
  for (let replica = 0; replica < scale; replica++) {
    for (const r of RECIPES) {
      const tag = videos.length;
      if (tag > MAX_CODE) throw new RangeError(`scale ${scale} needs more video tags than the frame code holds`);
      const hash = hashOf(tag);
      const startMs = r.startMs ?? 0;
      const jitterMs = r.jitterMs ?? 0;
      const durationS = (r.nFrames * r.spacingMs) / 1000;
      const shortSide = Math.min(r.width, r.height);
      if (shortSide !== (durationS > STORED_480_AFTER_SECONDS ? 480 : 720)) {
        throw new Error(`sample recipe ${r.benchmark} ${r.width}x${r.height} breaks the storage rule`);
      }
      const uses = [{ benchmark: r.benchmark, video_id: nextVideoId(r.benchmark) }];
      if (r.alsoIn) uses.push({ benchmark: r.alsoIn.benchmark, video_id: nextVideoId(r.alsoIn.benchmark) });
      const video: SampleVideo = {
        hash,
        tag,
        width: r.width,
        height: r.height,
        nFrames: r.nFrames,
        startMs,
        spacingMs: r.spacingMs,
        jitterMs,
        storedShortSide: shortSide as 720 | 480,
        long: durationS > LONG_SECONDS,
        tooShort: r.nFrames <= 32,
        lateStart: startMs !== 0,
        vfr: jitterMs !== 0,
        square: r.width === r.height,
        uses,
      };
      videos.push(video);
      for (const u of uses) manifest.push({ benchmark: u.benchmark, video_id: u.video_id, hash });

      const made: SampleItem[] = [];
      for (let q = 0; q < r.questions; q++) {
        const xss = replica === 0 && r === RECIPES[0] && q === 0;
        made.push(makeItem(r.benchmark, uses[0].video_id, hash, null, xss ? { question: XSS_QUESTION, options: XSS_OPTIONS } : undefined));
        if (xss) xssItemId = made[made.length - 1].item_id;
      }
      for (const e of r.existing ?? []) {
        for (const it of made.slice(0, e.n)) existing.push({ benchmark: it.benchmark, item_id: it.item_id, condition: e.condition });
      }
      items.push(...made);
      if (r.alsoIn) {
        for (let q = 0; q < r.alsoIn.questions; q++) items.push(makeItem(r.alsoIn.benchmark, uses[1].video_id, hash, null));
      }
    }
  }

  // Items whose video is missing (once, whatever the scale): the origin's "96 items without a video".
  // One whose video_id has no manifest row (its v_blind row exists: done even without a video)…
  const orphan = makeItem('MVBench', nextVideoId('MVBench'), null, 'no_manifest_row');
  items.push(orphan);
  existing.push({ benchmark: 'MVBench', item_id: orphan.item_id, condition: 'v_blind' });
  // …and two sharing a manifest row whose <hash>/ folder was never made.
  const goneVideoId = nextVideoId('LVBench');
  const goneHash = hashOf(MAX_CODE); // a tag no encoded video uses
  manifest.push({ benchmark: 'LVBench', video_id: goneVideoId, hash: goneHash });
  items.push(makeItem('LVBench', goneVideoId, null, 'no_folder'), makeItem('LVBench', goneVideoId, null, 'no_folder'));

  if (opts.planted) addPlanted(videos, items, manifest);

  // Items in file order per benchmark: sort by item_id (ids are numbered per benchmark).
  items.sort((a, b) => a.benchmark.localeCompare(b.benchmark) || a.item_id.localeCompare(b.item_id));
  return {
    scale,
    benchmarks: [...SAMPLE_BENCHMARKS, ...(opts.planted ? PLANTED_EFFECTS.map((e) => PLANTED_BENCHMARK[e]) : [])],
    videos,
    items,
    manifest,
    missingFolderHashes: [goneHash],
    existing,
    xssItemId,
  };
}

/** The planted benchmarks' videos (20 s, 1280×720 at 2 fps: 40 frames, so v_128_s224 sends all 40) and items, with their own random stream. */
function addPlanted(videos: SampleVideo[], items: SampleItem[], manifest: ManifestRow[]): void {
  const rnd = new SeededRandom(SAMPLE_SEED + 19);
  const count: Record<string, number> = {};
  for (let v = 0; v < PLANTED_VIDEOS; v++) {
    const tag = videos.length;
    if (tag >= MAX_CODE) throw new RangeError('the planted videos need more video tags than the frame code holds');
    const hash = hashOf(tag);
    const uses = PLANTED_EFFECTS.map((e) => ({ benchmark: PLANTED_BENCHMARK[e], video_id: `planted_${String(v + 1).padStart(4, '0')}` }));
    videos.push({
      hash,
      tag,
      width: 1280,
      height: 720,
      nFrames: 40,
      startMs: 0,
      spacingMs: 500,
      jitterMs: 0,
      storedShortSide: 720,
      long: false,
      tooShort: false,
      lateStart: false,
      vfr: false,
      square: false,
      uses,
    });
    for (const u of uses) manifest.push({ ...u, hash });
    for (const effect of PLANTED_EFFECTS) {
      const bench = PLANTED_BENCHMARK[effect];
      for (let q = 0; q < PLANTED_QUESTIONS_PER_VIDEO; q++) {
        const n = (count[bench] = (count[bench] ?? 0) + 1);
        const t = plantedQuestion(effect, n);
        const at = rnd.int(t.options.length);
        const [right, ...wrong] = t.options;
        items.push({
          item_id: `${bench}_${String(n).padStart(4, '0')}`,
          benchmark: bench,
          video_id: uses[0].video_id,
          question: t.question,
          options: [...wrong.slice(0, at), right, ...wrong.slice(at)],
          answer: optionLetter(at),
          hash,
          missing: null,
        });
      }
    }
  }
}

/** The plan's facts as lists, for tests that count rather than hard-code. */
export interface SampleFacts {
  /** item ids (benchmark/item_id) whose video_id has no manifest row. */
  itemsWithoutManifestRow: string[];
  /** item ids whose manifest row points at a <hash>/ folder that does not exist. */
  itemsWithoutFolder: string[];
  tooShort: string[];
  stored480: string[];
  stored720: string[];
  /** Longer than 600 s (see SampleVideo.long). */
  long: string[];
  lateStart: string[];
  vfr: string[];
  square: string[];
  portrait: string[];
}

export function describeSample(plan: SamplePlan): SampleFacts {
  const hashes = (f: (v: SampleVideo) => boolean) => plan.videos.filter(f).map((v) => v.hash);
  const items = (m: MissingVideo) => plan.items.filter((i) => i.missing === m).map((i) => `${i.benchmark}/${i.item_id}`);
  return {
    itemsWithoutManifestRow: items('no_manifest_row'),
    itemsWithoutFolder: items('no_folder'),
    tooShort: hashes((v) => v.tooShort),
    stored480: hashes((v) => v.storedShortSide === 480),
    stored720: hashes((v) => v.storedShortSide === 720),
    long: hashes((v) => v.long),
    lateStart: hashes((v) => v.lateStart),
    vfr: hashes((v) => v.vfr),
    square: hashes((v) => v.square),
    portrait: hashes((v) => v.height > v.width),
  };
}
