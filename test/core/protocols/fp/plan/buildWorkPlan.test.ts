import { strict as assert } from 'node:assert';
import { loadPackage } from '../../../../../src/core/protocols/fp/package/load';
import { readResultsCsv } from '../../../../../src/core/protocols/fp/package/resultsCsv';
import { buildWorkPlan, loadVideoFramePlans, type WorkPlan, type WorkUnit } from '../../../../../src/core/protocols/fp/plan';
import { DEFAULT_CONDITIONS, parseCondition } from '../../../../../src/core/protocols/fp/rules/conditions';
import { planFrames } from '../../../../../src/core/protocols/fp/rules/plan';
import { buildPromptText } from '../../../../../src/core/protocols/fp/rules/prompt';
import { predictPromptTokens } from '../../../../../src/core/protocols/fp/rules/qwenTokens';
import { tempDir, writePackage, timestamps } from './fixture';

const FPS = ['v_fps0.25_s224', 'v_fps0.5_s224', 'v_fps1_s224', 'v_fps2_s224'];
const CSV = [
  'benchmark,item_id,condition,status,pred,answer,correct,n_frames,prompt_tokens,latency_s,ts',
  'BenchA,a_plain,v_32,ok,B,B,1,32,3000,1.0,t',
  'BenchA,a_plain,v_blind,ok,A,B,0,0,40,0.1,t',
  'BenchA,a_480done,v_32,ok,C,B,0,32,3000,1.0,t',
  'BenchA,a_nofolder,v_1,ok,B,B,1,1,100,0.2,t',
  ...DEFAULT_CONDITIONS.map((c) => `BenchA,a_alldone,${c},ok,B,B,1,1,1,1,t`),
  '',
].join('\n');

async function fixture(): Promise<string> {
  const root = await tempDir();
  await writePackage(root, {
    benchmarks: {
      BenchA: [
        { item_id: 'a_plain', video_id: 'vPlain', hash: 'hPlain' },
        { item_id: 'a_short', video_id: 'vShort', hash: 'hShort' },
        { item_id: 'a_480done', video_id: 'v480a', hash: 'h480a' },
        { item_id: 'a_480new', video_id: 'v480b', hash: 'h480b' },
        { item_id: 'a_nomanifest', video_id: 'vNone' },
        { item_id: 'a_nofolder', video_id: 'vGone', hash: 'hGone' },
        { item_id: 'a_badmeta', video_id: 'vBad', hash: 'hBad' },
        { item_id: 'a_square', video_id: 'vSq', hash: 'hSq' },
        { item_id: 'a_shared', video_id: 'vPlain', hash: 'hPlain' },
        { item_id: 'a_alldone', video_id: 'vAllDone', hash: 'hAllDone' },
      ],
    },
    videos: [
      { hash: 'hPlain', width: 1280, height: 720, nFrames: 120 },
      { hash: 'hShort', width: 1280, height: 720, nFrames: 20 },
      { hash: 'h480a', width: 854, height: 480, nFrames: 1024 },
      { hash: 'h480b', width: 854, height: 480, nFrames: 1024 },
      { hash: 'hBad', width: 1280, height: 720, nFrames: 50, meta: 'invalid' },
      { hash: 'hSq', width: 720, height: 720, nFrames: 1024 },
    ],
    csv: CSV,
  });
  return root;
}

async function plan(root: string, conditions: readonly string[] = DEFAULT_CONDITIONS): Promise<WorkPlan> {
  const pkg = await loadPackage(root);
  assert.deepEqual(pkg.problems, []);
  return buildWorkPlan(pkg, await readResultsCsv(pkg.layout.resultsCsv), { conditions });
}

function statusOf(p: WorkPlan, item: string, cond: string): string {
  const u = p.units.filter((x) => x.item.item_id === item && x.condition === cond);
  assert.ok(u.length <= 1, `one unit per (item, condition): ${item} ${cond}`);
  return u.length ? u[0].status : 'done';
}

function unit(p: WorkPlan, item: string, cond: string): WorkUnit {
  const u = p.units.find((x) => x.item.item_id === item && x.condition === cond);
  assert.ok(u, `${item} ${cond} has a unit`);
  return u;
}

describe('plan/buildWorkPlan', () => {
  let root: string;
  let p: WorkPlan;
  before(async () => {
    root = await fixture();
    p = await plan(root);
  });

  it('gives every (item, condition) its status', () => {
    const expect: Record<string, (c: string) => string> = {
      a_plain: (c) => (c === 'v_32' || c === 'v_blind' ? 'done' : 'todo'),
      a_short: (c) => (FPS.includes(c) || c === 'v_128_s224' ? 'NA' : 'todo'),
      a_480done: (c) => (c === 'v_32' ? 'done' : c === 'v_32_s448' ? 'reuse' : 'todo'),
      a_480new: (c) => (c === 'v_32_s448' ? 'reuse' : 'todo'),
      a_nomanifest: () => 'no_video',
      a_nofolder: (c) => (c === 'v_1' ? 'done' : 'no_video'), // done even though the video is gone now
      a_badmeta: () => 'bad_meta',
      a_square: () => 'todo',
      a_shared: () => 'todo',
      a_alldone: () => 'done', // its video was never read: no folder, yet no failure
    };
    for (const [item, f] of Object.entries(expect)) {
      for (const c of DEFAULT_CONDITIONS) assert.equal(statusOf(p, item, c), f(c), `${item} ${c}`);
    }
    assert.match(unit(p, 'a_nomanifest', 'v_1').message!, /no manifest row for \(BenchA, vNone\)/);
    assert.match(unit(p, 'a_nofolder', 'v_32').message!, /hGone is missing/);
    assert.match(unit(p, 'a_badmeta', 'v_32').message!, /timestamps has 49 entries but n_frames is 50/);
    assert.deepEqual(p.conditions, [...DEFAULT_CONDITIONS]);
  });

  it('links reuse rows to the stored v_32 row or to the v_32 unit that runs first', () => {
    const stored = unit(p, 'a_480done', 'v_32_s448');
    assert.deepEqual(stored.reuse, { fromCondition: 'v_32', stored: { pred: 'C', correct: '0' }, from: null });
    const waiting = unit(p, 'a_480new', 'v_32_s448');
    const v32 = unit(p, 'a_480new', 'v_32');
    assert.equal(waiting.reuse!.from, v32);
    assert.equal(waiting.reuse!.stored, null);
    assert.deepEqual(v32.dependents, [waiting]);
    assert.equal(v32.addedForReuse, undefined);
  });

  it('adds v_32 as todo when the conditions leave it out and a reuse row needs it', async () => {
    const only = await plan(root, ['v_32_s448']);
    assert.deepEqual(only.conditions, ['v_32_s448', 'v_32']);
    const added = only.units.filter((u) => u.condition === 'v_32');
    assert.deepEqual(
      added.map((u) => [u.item.item_id, u.status, u.addedForReuse]),
      [['a_480new', 'todo', true]],
    );
    assert.equal(unit(only, 'a_480new', 'v_32_s448').reuse!.from, added[0]);
    assert.deepEqual(only.counts.get('BenchA')!.get('v_32'), { todo: 1, NA: 0, reuse: 0, done: 0, no_video: 0, bad_meta: 0, context_refusals: 0 });
    assert.equal(only.counts.get('BenchA')!.get('v_32_s448')!.reuse, 2);
  });

  it('counts every item once per condition', () => {
    const fps2 = p.counts.get('BenchA')!.get('v_fps2_s224')!;
    assert.deepEqual(fps2, { todo: 5, NA: 1, reuse: 0, done: 1, no_video: 2, bad_meta: 1, context_refusals: 1 });
    for (const c of DEFAULT_CONDITIONS) {
      const n = p.counts.get('BenchA')!.get(c)!;
      assert.equal(n.todo + n.NA + n.reuse + n.done + n.no_video + n.bad_meta, 10, c);
    }
  });

  it('predicts context refusals from the Qwen3-VL token rule (square video at fps2)', () => {
    const sq = unit(p, 'a_square', 'v_fps2_s224');
    assert.equal(sq.nFrames, 1024);
    const text = buildPromptText(sq.item.question, sq.item.options);
    assert.equal(sq.predictedPromptTokens, predictPromptTokens(new Array(1024).fill({ width: 224, height: 224 }), text));
    assert.equal(sq.contextRefusal, true);
    assert.equal(unit(p, 'a_square', 'v_fps1_s224').contextRefusal, false);
    const wide = unit(p, 'a_480new', 'v_fps2_s224');
    assert.equal(wide.contextRefusal, false, '16:9 is capped at 582 frames');
    // far from the limit the fps grid is not selected by the plan: a close upper bound stands in
    assert.equal(wide.exact, false);
    const widePlan = planFrames(parseCondition('v_fps2_s224'), { width: 854, height: 480, timestamps: timestamps(1024), too_short: false });
    assert.equal(widePlan.status === 'send' && widePlan.indices.length, 582);
    assert.equal(wide.nFrames, 582);
    assert.equal(sq.exact, true);
    const plainFps = unit(p, 'a_plain', 'v_fps0.25_s224');
    const exactPlain = planFrames(parseCondition('v_fps0.25_s224'), { width: 1280, height: 720, timestamps: timestamps(120), too_short: false });
    assert.ok(
      exactPlain.status === 'send' && plainFps.nFrames! >= exactPlain.indices.length && plainFps.nFrames! <= exactPlain.indices.length + 1,
      `bound ${plainFps.nFrames} is close to ${exactPlain.status === 'send' && exactPlain.indices.length}`,
    );
    const count = unit(p, 'a_480new', 'v_128_s224');
    assert.equal(count.nFrames, 128);
    assert.equal(
      count.predictedPromptTokens,
      predictPromptTokens(new Array(128).fill({ width: 399, height: 224 }), buildPromptText(count.item.question, count.item.options)),
    );
    assert.equal(unit(p, 'a_short', 'v_32').nFrames, 20);
    assert.equal(unit(p, 'a_short', 'v_blind').nFrames, 0);
  });

  it('groups todo units by video, a shared video in one group', () => {
    const todo = p.units.filter((u) => u.status === 'todo');
    assert.equal(
      p.videos.reduce((n, v) => n + v.units.length, 0),
      todo.length,
    );
    for (const v of p.videos) for (const u of v.units) assert.equal(u.hash, v.hash);
    const plain = p.videos.find((v) => v.hash === 'hPlain')!;
    assert.deepEqual([...new Set(plain.units.map((u) => u.item.item_id))], ['a_plain', 'a_shared']);
    assert.equal(plain.units.length, 11 + 13);
  });

  it('loadVideoFramePlans gives the protocol planFrames result per condition', async () => {
    const v = p.videos.find((x) => x.hash === 'hShort')!;
    const res = await loadVideoFramePlans(p.layout, v);
    assert.equal(res.kind, 'ok');
    if (res.kind !== 'ok') return;
    assert.deepEqual([...res.plans.keys()].sort(), [...new Set(v.units.map((u) => u.condition))].sort());
    const meta = { width: 1280, height: 720, timestamps: timestamps(20), too_short: true };
    assert.deepEqual(res.plans.get('v_8_s224'), planFrames(parseCondition('v_8_s224'), meta));
    assert.equal(res.plans.get('v_32')!.capped, true);
  });
});
