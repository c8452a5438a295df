// The findings on synthetic tables built in memory: every verdict where it is planted, NA and reuse rows
// never counted as answers, ladder flags, and a partial sweep (random subsets of rows) never gives a verdict
// that a contrast with fewer than 100 pairs cannot support.
import { strict as assert } from 'node:assert';
import { SeededRandom } from '../../../../../src/core/seededRandom';
import { buildFindingsInput, computeFindings, MIN_PAIRS, type Findings } from '../../../../../src/core/protocols/fp/findings';
import type { Item } from '../../../../../src/core/protocols/fp/package/schemas';

const HEADER = ['benchmark', 'item_id', 'condition', 'status', 'pred', 'answer', 'correct', 'n_frames', 'prompt_tokens', 'latency_s', 'ts'];
const CONDS = ['v_blind', 'v_1', 'v_8_s224', 'v_32_s168', 'v_32_s224', 'v_32_s448', 'v_32', 'v_128_s224'];

type Effect = (cond: string, u: number, r: SeededRandom) => boolean;
const constant =
  (p: number): Effect =>
  (_c, u) =>
    u < p;
const EFFECTS: Record<string, Effect> = {
  // correct iff the item's u is below the condition's rate: more pixels / more frames → more items right
  Pix: (c, u, r) => (c === 'v_blind' ? r.next() < 0.25 : u < (c === 'v_32_s448' || c === 'v_32' ? 0.8 : c === 'v_32_s168' ? 0.4 : 0.6)),
  Frm: (c, u, r) => (c === 'v_blind' ? r.next() < 0.25 : u < (c === 'v_128_s224' ? 0.8 : c === 'v_8_s224' || c === 'v_1' ? 0.4 : 0.6)),
  Hurt: (c, u, r) => (c === 'v_blind' ? r.next() < 0.25 : u < (c === 'v_32_s448' ? 0.4 : 0.7)),
  Blind: constant(0.8),
  Null: (c, u, r) => (c === 'v_blind' ? r.next() < 0.25 : u < 0.6),
  Noisy: (c, _u, r) => r.next() < (c === 'v_blind' ? 0.25 : 0.6),
};

function synth(nItems: number, seed: number, benches = Object.keys(EFFECTS), itemsPerVideo = 5) {
  const r = new SeededRandom(seed);
  const items = new Map<string, Item[]>();
  const manifest = new Map<string, Map<string, string>>();
  const rows: string[][] = [];
  for (const b of benches) {
    const its: Item[] = [];
    const man = new Map<string, string>();
    for (let i = 0; i < nItems; i++) {
      const video = `vid${Math.floor(i / itemsPerVideo)}`;
      man.set(video, `${b}-hash-${video}`);
      its.push({ item_id: `${b}_${i}`, benchmark: b, video_id: video, question: 'q', options: ['a', 'b', 'c', 'd'], answer: 'A' });
      const u = r.next();
      for (const c of CONDS) {
        const ok = EFFECTS[b](c, u, r);
        const nFrames = c === 'v_blind' ? 0 : c === 'v_1' ? 1 : c === 'v_8_s224' ? 8 : c === 'v_128_s224' ? 60 : 32;
        rows.push([b, `${b}_${i}`, c, 'ok', ok ? 'A' : 'B', 'A', ok ? '1' : '0', String(nFrames), '100', '0.1', 't']);
      }
    }
    items.set(b, its);
    manifest.set(b, man);
  }
  return { benches, items, manifest, rows };
}

function findings(s: ReturnType<typeof synth>, rows = s.rows): Findings {
  return computeFindings(buildFindingsInput(s.benches, s.items, s.manifest, { file: 'r.csv', header: HEADER, rows }));
}

describe('findings: verdicts on synthetic tables', function () {
  it('a null effect on too few videos is inconclusive, never neither: their interval cannot show equivalence', function () {
    const many = findings(synth(200, 7, ['Null'], 5)).benchmarks[0]; // 40 videos
    assert.equal(many.verdict, 'neither');
    const few = findings(synth(200, 7, ['Null'], 25)).benchmarks[0]; // 8 videos
    assert.equal(few.contrasts.pixels.clusters, 8);
    assert.equal(few.verdict, 'inconclusive');
    assert.match(few.why, /fewer than 10 videos cannot show equivalence/);
  });

  it('gives each planted verdict, and the numbers agree with the counts', function () {
    const s = synth(200, 7);
    const f = findings(s);
    const verdict = Object.fromEntries(f.benchmarks.map((b) => [b.benchmark, b.verdict]));
    assert.deepEqual(verdict, { Pix: 'pixels', Frm: 'frames', Hurt: 'hurts', Blind: 'blind-solvable', Null: 'neither', Noisy: 'inconclusive' });
    const pix = f.benchmarks.find((b) => b.benchmark === 'Pix')!;
    assert.equal(pix.chance, 25);
    assert.equal(pix.contrasts.pixels.n, 200);
    assert.equal(pix.contrasts.pixels.c, 0); // the threshold model: right at 168 px implies right at 448 px
    assert.equal(pix.contrasts.pixels.delta, (100 * pix.contrasts.pixels.b) / 200);
    assert.equal(pix.contrasts.video.q, null);
    assert.equal(pix.contrasts.temporal.q, null);
    assert.ok(pix.contrasts.pixels.q !== null && pix.contrasts.pixels.q >= pix.contrasts.pixels.p!);
    const cell = pix.cells['v_32_s448'];
    assert.equal(cell.n, 200);
    assert.equal(cell.acc, (100 * cell.k) / 200);
    assert.match(f.benchmarks.find((b) => b.benchmark === 'Noisy')!.why, /detectable at 80 % power/);
  });

  it('--delta changes what counts: a δ above the planted effect leaves pixels undecided', function () {
    const s = synth(200, 7, ['Pix']);
    const input = buildFindingsInput(s.benches, s.items, s.manifest, { file: 'r.csv', header: HEADER, rows: s.rows });
    assert.equal(computeFindings(input, { deltaPts: 3 }).benchmarks[0].verdict, 'pixels');
    assert.notEqual(computeFindings(input, { deltaPts: 90 }).benchmarks[0].verdict, 'pixels');
  });

  it('NA and reuse rows are shown, never counted as answers, and flagged', function () {
    const s = synth(120, 3, ['Pix']);
    const rows = s.rows.map((r) => {
      const i = Number(r[1].split('_')[1]);
      if (r[2] === 'v_128_s224' && i < 10) return [r[0], r[1], r[2], 'NA', '', r[5], '', '', '', '', 't'];
      if (r[2] === 'v_32_s448' && i < 30) return [r[0], r[1], r[2], 'reuse', r[4], r[5], r[6], '32', '', '', 't'];
      if (r[2] === 'v_128_s224' && i < 20) return [...r.slice(0, 7), '32', ...r.slice(8)]; // as many frames as v_32_s224
      return r;
    });
    const b = findings(s, rows).benchmarks[0];
    assert.deepEqual([b.cells['v_128_s224'].n, b.cells['v_128_s224'].na], [110, 10]);
    assert.deepEqual([b.cells['v_32_s448'].n, b.cells['v_32_s448'].reuse], [90, 30]);
    assert.equal(b.contrasts.pixels.n, 90);
    assert.equal(b.contrasts.frames.n, 110);
    const flags = (b.flags ?? []).map((x) => `${x.kind}:${x.condition}<${x.same_as}:${x.items}`);
    assert.deepEqual(flags.sort(), ['capped:v_128_s224<v_32_s224:10', 'reused:v_32_s448<v_32:30']);
  });

  it('a partial sweep is pending, never a verdict a contrast with < 100 pairs cannot support', function () {
    const s = synth(160, 11);
    const r = new SeededRandom(5);
    let pending = 0;
    for (let trial = 0; trial < 40; trial++) {
      const keep = r.next();
      const rows = s.rows.filter(() => r.next() < keep);
      for (const b of findings(s, rows).benchmarks) {
        const short = (['pixels', 'frames', 'video'] as const).some((n) => b.contrasts[n].n < MIN_PAIRS);
        assert.equal(b.verdict === 'pending', short, `${b.benchmark} with ${rows.length} rows: ${b.verdict} (${b.why})`);
        if (short) pending++;
      }
    }
    assert.ok(pending > 0, 'some trials must be partial enough to be pending');
    const few = findings(s, s.rows.slice(0, 500));
    assert.ok(few.benchmarks.every((b) => b.verdict === 'pending'));
  });

  it('flips list the items that differ, with every condition answer', function () {
    const s = synth(120, 3, ['Pix']);
    const f = computeFindings(buildFindingsInput(s.benches, s.items, s.manifest, { file: 'r.csv', header: HEADER, rows: s.rows }), { flips: true });
    const b = f.benchmarks[0];
    const pixFlips = (b.flips ?? []).filter((x) => x.contrast === 'pixels');
    assert.equal(pixFlips.length, b.contrasts.pixels.b + b.contrasts.pixels.c);
    for (const fl of pixFlips) {
      assert.notEqual(fl.answers['v_32_s448'].correct, fl.answers['v_32_s168'].correct);
      assert.equal(fl.first_right, fl.answers['v_32_s448'].correct);
      assert.deepEqual(Object.keys(fl.answers).length, CONDS.length);
    }
  });
});
