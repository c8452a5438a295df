// buildWorkPlan: the status of every (benchmark, item, condition) of a run — done, NA, reuse, todo,
// no_video or bad_meta — from the loaded package, the results CSV and the videos' meta.json.
// The plan selects no frames for the runner (loadVideoFramePlans does, from planFrames); it sketches
// statuses with the protocol's rules (sketch.ts). See types.ts for how the runner uses it.
import { InputError } from '../../../errors';
import type { LoadedPackage } from '../package/load';
import { hashOf } from '../package/load';
import { readVideoMetaSync } from '../package/meta';
import { storedAnswer, type ResultsCsv } from '../package/resultsCsv';
import type { Item } from '../package/schemas';
import { MAX_MODEL_LEN, MAX_TOKENS } from '../rules/constants';
import { parseCondition, parseConditions, type Condition } from '../rules/conditions';
import { planFrames } from '../rules/plan';
import { buildPromptText } from '../rules/prompt';
import { refusesPrompt } from '../rules/qwenTokens';
import { REUSE_RULES } from '../rules/rules';
import { forEachYielding } from './forEachYielding';
import { sketchPlan, TokenPredictor } from './sketch';
import { MetaSummaryCache } from './metaCache';
import { emptyCounts, type UnitCounts, type VideoWork, type WorkPlan, type WorkUnit } from './types';

export interface BuildPlanOptions {
  conditions: readonly string[];
  /** A subset of the loaded benchmarks (default: all of them). */
  benchmarks?: readonly string[];
  /**
   * .fpsweep/plan-meta-cache.json (metaCache.ts): 'read' uses it if present (default: a dry run
   * writes nothing into the package), 'update' also writes it (the runner, which holds the lock),
   * 'off' ignores it.
   */
  metaCache?: 'read' | 'update' | 'off';
  /** Context of the servers, for the refusal prediction (default 65,536; never lowered by a run). */
  maxModelLen?: number;
}

/** One (video, condition): its status and, for send, the frames and image tokens (exact or bound). */
type CondEntry = { status: 'NA' } | { status: 'reuse'; from: string } | { status: 'send'; frames: number; exact: boolean; imageTokens: number };

type VideoEntry =
  /** Per condition index; undefined where no item of the video needs that condition. */
  { kind: 'ok'; conds: (CondEntry | undefined)[] } | { kind: 'no_video' | 'bad_meta'; message: string };

interface ItemRec {
  benchmark: string;
  item: Item;
  hash: string | undefined;
  /** Text part of the predicted prompt tokens (set when the video is read). */
  textTokens: number;
}

export async function buildWorkPlan(pkg: LoadedPackage, csv: Pick<ResultsCsv, 'done' | 'reuseAnswers'>, opts: BuildPlanOptions): Promise<WorkPlan> {
  const asked = parseConditions(opts.conditions);
  const maxModelLen = opts.maxModelLen ?? MAX_MODEL_LEN;
  const benchmarks = opts.benchmarks ? [...opts.benchmarks] : [...pkg.benchmarks];
  for (const b of benchmarks) {
    if (!pkg.items.has(b)) throw new InputError(`benchmark ${b} was not loaded from the package`);
  }
  // Reuse sources not asked for (v_32 when CONDS has v_32_s448 only): planned too, used only when needed.
  const conds: Condition[] = [...asked];
  const askedNames = new Set(asked.map((c) => c.name));
  for (const r of REUSE_RULES) {
    if (askedNames.has(r.condition) && !conds.some((c) => c.name === r.from)) conds.push(parseCondition(r.from));
  }
  const condIndex = new Map(conds.map((c, i) => [c.name, i]));
  const { done } = csv;

  // Pass 1: which items have work left, and which videos that needs.
  const recs: ItemRec[] = [];
  const byHash = new Map<string, ItemRec[]>();
  for (const benchmark of benchmarks) {
    for (const item of pkg.items.get(benchmark)!) {
      const hash = hashOf(pkg, benchmark, item.video_id);
      const rec: ItemRec = { benchmark, item, hash, textTokens: NaN };
      recs.push(rec);
      if (hash === undefined || asked.every((c) => done.has(benchmark, item.item_id, c.name))) continue;
      let list = byHash.get(hash);
      if (!list) byHash.set(hash, (list = []));
      list.push(rec);
    }
  }

  // Pass 2: read each needed meta.json once (synchronously, yielding every 20 ms) and sketch the
  // conditions some item of that video still needs (a resumed run skips done ones). Where the
  // token bound could exceed the context, planFrames selects the frames: the prediction is exact.
  const videos = new Map<string, VideoEntry>();
  const tokens = new TokenPredictor();
  const cacheMode = opts.metaCache ?? 'read';
  const cache = cacheMode === 'off' ? MetaSummaryCache.empty(pkg.layout) : MetaSummaryCache.load(pkg.layout);
  await forEachYielding([...byHash.keys()], (hash) => {
    const found = cache.check(hash);
    if (found.kind !== 'ok') {
      videos.set(hash, { kind: found.kind, message: found.message });
      return;
    }
    const recsOfVideo = byHash.get(hash)!;
    let maxText = 0;
    for (const rec of recsOfVideo) {
      rec.textTokens = tokens.textTokens(buildPromptText(rec.item.question, rec.item.options));
      maxText = Math.max(maxText, rec.textTokens);
    }
    const entries: (CondEntry | undefined)[] = new Array(conds.length);
    const planCond = (i: number) => {
      if (entries[i]) return;
      const cond = conds[i];
      const sk = sketchPlan(cond, cond.kind === 'blind' ? null : found.summary);
      if (sk.status !== 'send') {
        entries[i] = sk;
        return;
      }
      let { frames, exact } = sk;
      if (!exact && tokens.imageTokens(sk.width, sk.height, frames) + maxText + MAX_TOKENS > maxModelLen) {
        const full = found.lookup ?? readVideoMetaSync(pkg.layout, hash);
        if (full.kind !== 'ok') throw new Error(`${pkg.layout.metaFile(hash)} changed while planning: ${full.message}`);
        const fp = planFrames(cond, full.meta);
        if (fp.status !== 'send') throw new Error(`internal: sketch says send, planFrames ${fp.status} (${cond.name}, ${hash})`);
        frames = fp.indices.length;
        exact = true;
      }
      entries[i] = { status: 'send', frames, exact, imageTokens: tokens.imageTokens(sk.width, sk.height, frames) };
    };
    for (let i = 0; i < conds.length; i++) {
      const name = conds[i].name;
      if (!recsOfVideo.some((r) => !done.has(r.benchmark, r.item.item_id, name))) continue;
      planCond(i);
      const e = entries[i]!;
      if (e.status === 'reuse' && condIndex.has(e.from)) planCond(condIndex.get(e.from)!);
    }
    videos.set(hash, { kind: 'ok', conds: entries });
  });
  if (cacheMode === 'update') await cache.save();

  // Pass 3: units and counts in package order.
  const counts = new Map<string, Map<string, UnitCounts>>();
  const countsOf = (b: string, c: string) => {
    let byCond = counts.get(b);
    if (!byCond) counts.set(b, (byCond = new Map()));
    let n = byCond.get(c);
    if (!n) byCond.set(c, (n = emptyCounts()));
    return n;
  };
  for (const b of benchmarks) for (const c of asked) countsOf(b, c.name);
  const units: WorkUnit[] = [];
  const byVideo = new Map<string, VideoWork>();
  const addedConditions = new Set<string>();

  const todoUnit = (rec: ItemRec, cond: Condition, entry: Extract<CondEntry, { status: 'send' }>): WorkUnit => {
    const predicted = entry.imageTokens + rec.textTokens;
    // A bound under the limit means no refusal; over it, the entry is exact (planFrames ran).
    const refused = refusesPrompt(predicted, entry.frames, maxModelLen);
    const unit: WorkUnit = {
      benchmark: rec.benchmark,
      item: rec.item,
      condition: cond.name,
      status: 'todo',
      hash: rec.hash!,
      contextRefusal: refused,
      nFrames: entry.frames,
      predictedPromptTokens: predicted,
      exact: entry.exact,
    };
    let v = byVideo.get(rec.hash!);
    if (!v) byVideo.set(rec.hash!, (v = { hash: rec.hash!, units: [] }));
    v.units.push(unit);
    const n = countsOf(rec.benchmark, cond.name);
    n.todo++;
    if (refused) n.context_refusals++;
    return unit;
  };

  for (const rec of recs) {
    const { benchmark: b, item } = rec;
    const itemUnits = new Map<string, WorkUnit>();
    const waiting: WorkUnit[] = [];
    for (const cond of asked) {
      const n = countsOf(b, cond.name);
      if (done.has(b, item.item_id, cond.name)) {
        n.done++;
        continue;
      }
      let unit: WorkUnit;
      const video = rec.hash === undefined ? undefined : videos.get(rec.hash);
      if (rec.hash === undefined) {
        unit = { benchmark: b, item, condition: cond.name, status: 'no_video', hash: null, message: `no manifest row for (${b}, ${item.video_id})` };
        n.no_video++;
      } else if (!video) {
        throw new Error(`internal: video ${rec.hash} was not read`);
      } else if (video.kind !== 'ok') {
        unit = { benchmark: b, item, condition: cond.name, status: video.kind, hash: rec.hash, message: video.message };
        n[video.kind]++;
      } else {
        const entry = video.conds[condIndex.get(cond.name)!];
        if (!entry) throw new Error(`internal: ${cond.name} was not planned for ${rec.hash}`);
        if (entry.status === 'NA') {
          unit = { benchmark: b, item, condition: cond.name, status: 'NA', hash: rec.hash };
          n.NA++;
        } else if (entry.status === 'reuse') {
          let stored = null;
          if (done.has(b, item.item_id, entry.from)) {
            stored = storedAnswer(csv, b, item.item_id, entry.from) ?? null;
            if (!stored) throw new Error(`internal: the ${entry.from} row of (${b}, ${item.item_id}) is done but not indexed`);
          }
          unit = { benchmark: b, item, condition: cond.name, status: 'reuse', hash: rec.hash, reuse: { fromCondition: entry.from, stored, from: null } };
          if (!stored) waiting.push(unit);
          n.reuse++;
        } else {
          unit = todoUnit(rec, cond, entry);
        }
      }
      units.push(unit);
      itemUnits.set(cond.name, unit);
    }
    // Reuse rows whose source row does not exist yet wait for that unit (SPEC §2.4: v_32 first).
    for (const unit of waiting) {
      const from = unit.reuse!.fromCondition;
      let source = itemUnits.get(from);
      if (!source) {
        const video = videos.get(rec.hash!) as Extract<VideoEntry, { kind: 'ok' }>;
        const entry = video.conds[condIndex.get(from)!];
        if (!entry || entry.status !== 'send') throw new Error(`internal: reuse source ${from} is ${entry?.status ?? 'not planned'} for ${rec.hash}`);
        source = todoUnit(rec, conds[condIndex.get(from)!], entry);
        source.addedForReuse = true;
        addedConditions.add(from);
        units.push(source);
        itemUnits.set(from, source);
      }
      if (source.status !== 'todo') throw new Error(`internal: reuse source ${from} of ${item.item_id} is ${source.status}`);
      unit.reuse!.from = source;
      (source.dependents ??= []).push(unit);
    }
  }

  const conditions = [
    ...asked.map((c) => c.name),
    ...conds
      .slice(asked.length)
      .map((c) => c.name)
      .filter((c) => addedConditions.has(c)),
  ];
  return { layout: pkg.layout, benchmarks, conditions, units, videos: [...byVideo.values()], counts };
}
