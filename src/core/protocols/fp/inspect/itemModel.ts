// One item across its conditions, the model of `fpsweep inspect` and of the inspector panel: what each condition sent
// (the frames, at the size sent, with their stored indices and times; the prompt text) and what came back (the raw
// reply, the parsed letter, right or wrong, tokens, latency, server), from the package's files alone. Frames are the
// run's JPEGs where they are still there, else made again by `makeFrames` (inspectItem.ts passes the frame pipeline's
// rebuildFrames). This module imports no frame pipeline (so no sharp): the extension host reads an item with it and
// leaves the making to the CLI (src/extension/protocols/fp/inspectorSource.ts).
import { promises as fs } from 'node:fs';
import { InputError } from '../../../errors';
import { PackageLayout } from '../package/layout';
import { readVideoMetaUncached } from '../package/meta';
import { itemSchema, manifestRowSchema, type FailureRecord, type Item, type RawRecord, type VideoMeta } from '../package/schemas';
import { buildPromptText, parseCondition } from '../rules';
import { locateFrames, sentFramesProblem, type RebuildResult, type SentFrames } from './inspectFrames';
import { linesNaming, readItemRecords, readText, type CsvRow } from './itemRecords';
import type { ConditionInspection, ConditionState, ItemInspection } from './types';

export interface InspectOptions {
  benchmark: string;
  itemId: string;
  /** Conditions to show first (a flip's pair), in this order; every other condition the item has follows. */
  conditions?: readonly string[];
  /** Make missing frames again (default true); false leaves them `missing`. */
  rebuild?: boolean;
}

/** The ladder's order: text only, then frame counts (fewer first, then smaller frames), then frame rates. */
export function conditionOrder(a: string, b: string): number {
  const key = (name: string): number[] => {
    const c = parseCondition(name);
    if (c.kind === 'blind') return [0, 0, 0];
    if (c.kind === 'count') return [1, c.nFrames, c.shortSide ?? Number.MAX_SAFE_INTEGER];
    return [2, c.fps, c.shortSide];
  };
  const [x, y] = [key(a), key(b)];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2] || a.localeCompare(b);
}

/** The item of `benchmark` with id `itemId`, from items/samples/<benchmark>.jsonl. */
export async function readItem(layout: PackageLayout, benchmark: string, itemId: string): Promise<Item> {
  const file = layout.samplesFile(benchmark);
  const text = await readText(file);
  if (text === null) throw new InputError(`no benchmark ${benchmark} in this package (${file} does not exist)`);
  const problems: string[] = [];
  const item = linesNaming(text, file, itemId, itemSchema, problems).find((i) => i.item_id === itemId);
  if (!item) throw new InputError(`no item ${itemId} in ${file}${problems.length ? ` (${problems[0]})` : ''}`);
  return item;
}

type VideoLookup = { hash: string; meta: VideoMeta } | { hash: string | null; problem: string };

async function lookUpVideo(layout: PackageLayout, item: Item): Promise<VideoLookup> {
  const text = await readText(layout.manifest);
  const problems: string[] = [];
  const row =
    text === null
      ? undefined
      : linesNaming(text, layout.manifest, item.video_id, manifestRowSchema, problems).find(
          (r) => r.benchmark === item.benchmark && r.video_id === item.video_id,
        );
  if (!row) return { hash: null, problem: `no manifest row for (${item.benchmark}, ${item.video_id}) in ${layout.manifest}` };
  const m = await readVideoMetaUncached(layout, row.hash);
  return m.kind === 'ok' ? { hash: row.hash, meta: m.meta } : { hash: row.hash, problem: `${m.kind}: ${m.message}` };
}

const numberOf = (s: string | undefined): number | null => (s === undefined || s.trim() === '' || !Number.isFinite(Number(s)) ? null : Number(s));
const intOf = (s: string | undefined): number | null => {
  const n = numberOf(s);
  return n !== null && Number.isInteger(n) ? n : null;
};
const correctOf = (raw: RawRecord | undefined, row: CsvRow | undefined): boolean | null =>
  raw?.correct === 0 || raw?.correct === 1 ? raw.correct === 1 : row?.correct === '1' ? true : row?.correct === '0' ? false : null;

function stateOf(row: CsvRow | undefined, raw: RawRecord | undefined, failures: readonly FailureRecord[]): ConditionState {
  const s = row?.status ?? raw?.status;
  if (s === 'ok' || s === 'NA' || s === 'reuse') return s;
  return failures.length ? 'failed' : 'none';
}

/** A condition's answer as the row and the raw record give it (frames filled in later). */
function conditionView(condition: string, row: CsvRow | undefined, raw: RawRecord | undefined, failures: readonly FailureRecord[]): ConditionInspection {
  const m = raw?.meta;
  const problems: string[] = [];
  if (row && !raw && row.status === 'ok') problems.push('no raw record for this row: the reply and the frames sent are unknown');
  return {
    condition,
    state: stateOf(row, raw, failures),
    response: raw?.response ?? null,
    pred: raw?.pred ?? (row && row.status !== 'NA' ? (row.pred ?? null) : null),
    correct: correctOf(raw, row),
    promptTokens: raw?.usage.prompt_tokens ?? intOf(row?.prompt_tokens),
    completionTokens: raw?.usage.completion_tokens ?? null,
    predictedPromptTokens: m?.predicted_prompt_tokens ?? null,
    latencyS: raw?.latency_s ?? numberOf(row?.latency_s),
    endpoint: raw?.endpoint ?? null,
    ts: raw?.ts ?? row?.ts ?? null,
    reusedFrom: m?.reused_from ?? null,
    width: m?.width ?? null,
    height: m?.height ?? null,
    shortSide: m?.short_side ?? null,
    capped: m?.capped ?? null,
    cappedCtx: m?.capped_ctx ?? null,
    nGrid: m?.n_grid ?? null,
    nMax: m?.n_max ?? null,
    frames: [],
    failures: failures.map((f) => ({ kind: f.kind, message: f.message, endpoint: f.endpoint, attempts: f.attempts, ts: f.ts })),
    problems,
  };
}

/** The frames a raw record says were sent, or null when it sent none (text only, NA, reuse). */
function sentFrames(condition: string, raw: RawRecord | undefined): SentFrames | null {
  const m = raw?.meta;
  if (!m?.frame_indices?.length || m.width === null || m.height === null) return null;
  return { key: condition, indices: m.frame_indices, width: m.width, height: m.height };
}

/** Makes a video's missing frames (one ask per condition, each fit to the video): inspectFrames.ts's contract. */
export type MakeFrames = (layout: PackageLayout, video: { hash: string; meta: VideoMeta }, asks: readonly SentFrames[]) => Promise<Map<string, RebuildResult>>;

/**
 * The item's model. Frames the run's store no longer has: made by `makeFrames`; with `makeFrames` null they stay
 * `missing` in silence (the caller makes them next); with `rebuild: false` they stay `missing`, said in `problems`.
 */
export async function readInspection(root: string, opts: InspectOptions, makeFrames: MakeFrames | null): Promise<ItemInspection> {
  const layout = new PackageLayout(root);
  if (!(await fs.stat(layout.samplesDir).catch(() => null))?.isDirectory()) throw new InputError(`${root} is not a run package (no items/samples)`);
  const item = await readItem(layout, opts.benchmark, opts.itemId);
  const [video, records] = await Promise.all([lookUpVideo(layout, item), readItemRecords(layout, opts.benchmark, opts.itemId)]);
  const first = [...new Set(opts.conditions ?? [])];
  first.forEach((c) => parseCondition(c)); // a bad name is the caller's error (exit 2), said before anything else
  const found = new Set([...records.rows.keys(), ...records.raws.keys(), ...records.failures.keys()]);
  const rest = [...found]
    .filter((c) => !first.includes(c))
    .filter(isConditionName)
    .sort(conditionOrder);
  const conditions = [...first, ...rest].map((c) => conditionView(c, records.rows.get(c), records.raws.get(c), records.failures.get(c) ?? []));
  conditions[0]?.problems.push(...records.problems);

  const rebuilt = await fillFrames(layout, video, conditions, records.raws, opts.rebuild === false ? 'no' : makeFrames);
  return {
    packageDir: layout.root,
    benchmark: item.benchmark,
    item: { item_id: item.item_id, video_id: item.video_id, question: item.question, options: item.options, answer: item.answer },
    promptText: buildPromptText(item.question, item.options),
    video:
      'meta' in video
        ? { hash: video.hash, width: video.meta.width, height: video.meta.height, nFrames: video.meta.n_frames, durationS: video.meta.duration_s }
        : null,
    videoProblem: 'problem' in video ? video.problem : null,
    conditions,
    rebuiltFrames: rebuilt,
  };
}

function isConditionName(name: string): boolean {
  try {
    parseCondition(name);
    return true;
  } catch {
    return false; // a folder or row under another name is not a condition of this protocol: not shown
  }
}

/** Each condition's frames: the run's files, then the inspector's, then (rebuild) made again. Returns frames made. */
async function fillFrames(
  layout: PackageLayout,
  video: VideoLookup,
  conditions: ConditionInspection[],
  raws: ReadonlyMap<string, RawRecord>,
  make: MakeFrames | 'no' | null,
): Promise<number> {
  const asks: { view: ConditionInspection; sent: SentFrames; located: { file: string | null; fromRun: boolean }[] }[] = [];
  for (const view of conditions) {
    const raw = raws.get(view.condition);
    const sent = sentFrames(view.condition, raw);
    if (!sent) continue;
    const times = raw!.meta.timestamps;
    const timeOf = (k: number, index: number) => times?.[k] ?? ('meta' in video ? (video.meta.timestamps[index] ?? null) : null);
    const located = video.hash !== null ? await locateFrames(layout, video.hash, sent) : sent.indices.map(() => ({ file: null, fromRun: false }));
    view.frames = sent.indices.map((index, k) => ({
      index,
      timestamp: timeOf(k, index),
      file: located[k].file,
      source: located[k].fromRun ? 'run' : located[k].file ? 'rebuilt' : 'missing',
    }));
    if (located.some((l) => l.file === null)) asks.push({ view, sent, located });
  }
  if (!asks.length) return 0;
  if (!('meta' in video)) {
    for (const a of asks) a.view.problems.push(`frames not in the run's store and not made again: ${video.problem}`);
    return 0;
  }
  if (make === null) return 0;
  if (make === 'no') {
    for (const a of asks) a.view.problems.push("frames not in the run's store (not made again: --no-rebuild)");
    return 0;
  }
  const fit = asks.filter((a) => {
    const why = sentFramesProblem(a.sent, video.meta);
    if (why) a.view.problems.push(`the raw record does not fit the video: ${why}`);
    return !why;
  });
  const made = await make(
    layout,
    video,
    fit.map((a) => a.sent),
  );
  let count = 0;
  for (const a of fit) {
    const r = made.get(a.sent.key)!;
    if (!r.ok) {
      a.view.problems.push(`frames could not be made again: ${r.message}`);
      continue;
    }
    a.view.frames.forEach((f, k) => {
      if (a.located[k].file !== null) return;
      f.file = r.paths[k];
      f.source = 'rebuilt';
      count++;
    });
  }
  return count;
}
