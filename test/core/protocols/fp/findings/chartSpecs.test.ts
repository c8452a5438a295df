import { strict as assert } from 'node:assert';
import { laddersOf, ladderPoints, tokensPerNominalFrame, visualTokens } from '../../../../../src/core/protocols/fp/findings/charts/ladders';
import { ladderSpec, overviewExtent, overviewRows, overviewSpec, verdictColors } from '../../../../../src/core/protocols/fp/findings/charts/specs';
import { VERDICTS } from '../../../../../src/core/protocols/fp/findings/types';
import { loadFindingsFixture } from './fixture';

/** Every data array of a (layered) Vega-Lite spec. */
function dataValues(spec: unknown): Record<string, unknown>[][] {
  const out: Record<string, unknown>[][] = [];
  const walk = (s: unknown) => {
    if (!s || typeof s !== 'object') return;
    const o = s as { data?: { values?: Record<string, unknown>[] }; layer?: unknown[] };
    if (o.data?.values) out.push(o.data.values);
    for (const l of o.layer ?? []) walk(l);
  };
  walk(spec);
  return out;
}

describe('findings chart specs', () => {
  const f = loadFindingsFixture();

  it('places each step on its ladders (v_32_s224 on two, storage and blind on none)', () => {
    assert.deepEqual(laddersOf('v_32_s224'), ['resolution', 'frame count']);
    assert.deepEqual(laddersOf('v_32_s448'), ['resolution']);
    assert.deepEqual(laddersOf('v_128_s224'), ['frame count']);
    assert.deepEqual(laddersOf('v_fps0.25_s224'), ['frame rate']);
    for (const c of ['v_32', 'v_1', 'v_blind', 'nonsense']) assert.deepEqual(laddersOf(c), [], c);
  });

  it('estimates visual tokens from the protocol rule: frames × Qwen tokens of a 16:9 frame at S', () => {
    // 854×480 at 224 → 399×224 (round half up) → Qwen 384×224 → 12·7 + 2 = 86 (SPEC §2.5: 398×224 → 86).
    assert.equal(tokensPerNominalFrame(224), 86);
    assert.equal(visualTokens('v_32_s224'), 32 * 86);
    assert.equal(visualTokens('v_8_s224'), 8 * 86);
    assert.ok(visualTokens('v_32_s448')! > visualTokens('v_32_s336')!);
    assert.ok(visualTokens('v_32_s336')! > visualTokens('v_32_s168')!);
    assert.equal(visualTokens('v_fps1_s224'), null, 'a frame-rate step has no estimate without the frames sent');
    assert.equal(visualTokens('v_fps1_s224', 120.5), Math.round(120.5 * 86));
    assert.equal(visualTokens('v_blind'), 0);
  });

  it('gives a card one point per ladder step with an answered cell, in ladder order', () => {
    const mv = f.benchmarks.find((b) => b.benchmark === 'MVBench')!;
    const pts = ladderPoints(mv, { 'v_fps0.25_s224': 30, 'v_fps0.5_s224': 60, v_fps1_s224: 120, v_fps2_s224: 240 });
    const by = (l: string) => pts.filter((p) => p.ladder === l).map((p) => p.condition);
    assert.deepEqual(by('resolution'), ['v_32_s168', 'v_32_s224', 'v_32_s336', 'v_32_s448']);
    assert.deepEqual(by('frame count'), ['v_8_s224', 'v_32_s224', 'v_128_s224']);
    assert.deepEqual(by('frame rate'), ['v_fps0.25_s224', 'v_fps0.5_s224', 'v_fps1_s224', 'v_fps2_s224']);
    const p = pts.find((x) => x.condition === 'v_32_s448')!;
    assert.deepEqual([p.acc, p.lo, p.hi, p.n], [mv.cells['v_32_s448'].acc, mv.cells['v_32_s448'].lo, mv.cells['v_32_s448'].hi, 300]);
    // Without the frames sent, the frame-rate ladder is left out rather than drawn at a guessed place.
    assert.equal(ladderPoints(mv).filter((x) => x.ladder === 'frame rate').length, 0);
    // A pending benchmark draws only the cells it has.
    const partial = ladderPoints(f.benchmarks.find((b) => b.benchmark === 'Partial')!);
    assert.deepEqual(
      partial.map((x) => x.condition),
      ['v_32_s168', 'v_32_s448'],
    );
  });

  it('puts every measured benchmark on the overview at its Δs with its interval cross, and leaves pending ones off', () => {
    const rows = overviewRows(f);
    assert.deepEqual(
      rows.map((r) => r.benchmark),
      f.benchmarks.filter((b) => b.verdict !== 'pending').map((b) => b.benchmark),
    );
    const lv = rows.find((r) => r.benchmark === 'LVBench')!;
    const src = f.benchmarks.find((b) => b.benchmark === 'LVBench')!.contrasts;
    assert.deepEqual(
      [lv.pixels, lv.pixelsLo, lv.pixelsHi, lv.frames, lv.framesLo, lv.framesHi],
      [src.pixels.delta, src.pixels.lo, src.pixels.hi, src.frames.delta, src.frames.lo, src.frames.hi],
    );
    const spec = overviewSpec(f);
    const L = overviewExtent(rows, f.delta_pts);
    assert.ok(
      rows.every((r) => Math.abs(r.pixelsLo) <= L && Math.abs(r.framesHi) <= L),
      'every cross fits the axes',
    );
    const all = dataValues(spec);
    assert.ok(
      all.some((v) => JSON.stringify(v) === JSON.stringify(rows)),
      'the rows are the plotted data',
    );
    const regions = all.find((v) => v.some((r) => r.label === 'both'))!;
    assert.deepEqual(
      regions.find((r) => r.verdict === 'neither'),
      { verdict: 'neither', x: -3, x2: 3, y: -3, y2: 3, label: 'neither (±3)', fill: '#76b7b2' },
    );
  });

  it('colors every verdict, in one fixed order', () => {
    assert.deepEqual(Object.keys(verdictColors()).sort(), [...VERDICTS].sort());
    assert.equal(new Set(Object.values(verdictColors())).size, VERDICTS.length);
  });

  it('draws the blind and chance lines of the benchmark on its card', () => {
    const b = f.benchmarks.find((x) => x.benchmark === 'NullBench')!;
    const spec = ladderSpec(b, ladderPoints(b));
    const refs = dataValues(spec).find((v) => v.some((r) => typeof r.label === 'string' && String(r.label).startsWith('chance')))!;
    assert.deepEqual(
      refs.map((r) => [r.label, r.value]),
      [
        [`blind ${b.cells['v_blind'].acc!.toFixed(1)}`, b.cells['v_blind'].acc],
        ['chance 20.0', 20],
      ],
    );
    assert.equal((spec as { title: { text: string } }).title.text, 'NullBench');
  });
});

describe('findings chart specs keep data as data', () => {
  it('puts a hostile benchmark name only into data values and title text, never into an expression or a field name', () => {
    const f = loadFindingsFixture();
    const name = 'x"]; alert(1); //<script>';
    f.benchmarks[0].benchmark = name;
    const b = f.benchmarks[0];
    const places: string[] = [];
    const walk = (v: unknown, at: string) => {
      if (typeof v === 'string') {
        if (v.includes('alert(1)')) places.push(at);
      } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}[${i}]`));
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${at}.${k}`);
    };
    walk(overviewSpec(f), 'overview');
    walk(ladderSpec(b, ladderPoints(b)), 'card');
    assert.ok(places.length >= 2, places.join(', '));
    for (const p of places) assert.match(p, /(\.data\.values\[\d+\]\.(benchmark|why)$)|(^card\.title\.text$)/, p);
  });
});
