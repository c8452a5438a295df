import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { avtimeReport, cleanFilter, listQueries, loadAvtimeRun, queryDetail } from '../../../../src/core/protocols/avtime/report';
import { tmpDir } from './stages/fixtures';
import { RUN_ID, sha, writeRun } from './runFixture';

const fact = (facts: { label: string; value: string }[], label: string) => facts.find((f) => f.label === label)?.value;

describe('AVTime report (scores, identity, per-query traces)', () => {
  let root: string;
  beforeEach(() => {
    root = writeRun(path.join(tmpDir('report'), 'outputs', 'avtime-bench'), 'score');
  });

  it('the six scores as direction × axis cells with their query counts, and the prediction failures', async () => {
    const r = avtimeReport(await loadAvtimeRun(root), new Date(0));
    assert.equal(r.runId, RUN_ID);
    assert.equal(r.scored, true);
    assert.deepEqual(
      r.scores.map((c) => [c.key, c.direction, c.axis, c.score, c.queries]),
      [
        ['T2E-A', 't2e', 'A', 0.75, 1],
        ['T2E-V', 't2e', 'V', 0, 1],
        ['E2T-A', 'e2t', 'A', 3500 / 6000, 1],
        ['E2T-V', 'e2t', 'V', 0, 1],
        ['E2E-A', 'e2e', 'A', 1, 1],
        ['E2E-V', 'e2e', 'V', 0, 1],
      ],
    );
    assert.equal(r.predictionFailures, 1);
    assert.equal(fact(r.counts, 'no_active_prediction'), '1');
    assert.equal(r.canonical, true);
    assert.equal(fact(r.identity, 'commit'), 'abc123');
    assert.equal(fact(r.identity, 'target model'), 'Qwen/Omni (id Omni, revision r1)');
    assert.equal(fact(r.identity, 'target topology'), 'GPU groups [[0],[1]], TP 1, 2 shard(s)');
    assert.equal(r.traces, 6);
    assert.deepEqual(r.videos, ['vid_0', 'vid_1']);
    assert.deepEqual(r.problems, []);
  });

  it("summary_ci.json's intervals per direction: A, V and the paired A − V, with the seed and replicates", async () => {
    const r = avtimeReport(await loadAvtimeRun(root));
    const ci = JSON.parse(fs.readFileSync(path.join(root, 'eval', RUN_ID, 'summary_ci.json'), 'utf8'));
    assert.ok(r.intervals);
    assert.deepEqual([r.intervals.seed, r.intervals.replicates, r.intervals.level, r.intervals.videos], [7, 500, 0.95, 2]);
    assert.deepEqual(
      r.intervals.rows.map((x) => x.direction),
      ['t2e', 'e2t', 'e2e'],
    );
    const e2t = r.intervals.rows[1];
    assert.deepEqual(e2t.A, { estimate: 3500 / 6000, lo: ci.scores['E2T-A'].lo, hi: ci.scores['E2T-A'].hi, videos: 1 });
    const d = ci.audio_minus_visual.e2t;
    assert.deepEqual(e2t.audioMinusVisual, { estimate: d.estimate, lo: d.lo, hi: d.hi, videos: d.videos });
    assert.equal(d.estimate, 3500 / 6000 - 0);
  });

  it('a run without summary_ci.json has no intervals; a broken one is a problem, not a crash', async () => {
    const file = path.join(root, 'eval', RUN_ID, 'summary_ci.json');
    fs.rmSync(file);
    assert.equal(avtimeReport(await loadAvtimeRun(root)).intervals, null);
    fs.writeFileSync(file, JSON.stringify({ seed: 'x' }));
    const r = avtimeReport(await loadAvtimeRun(root));
    assert.equal(r.intervals, null);
    assert.match(r.problems.join('\n'), /summary_ci\.json: /);
  });

  it('before scoring: no scores, no traces, still a report', async () => {
    const early = writeRun(path.join(tmpDir('report-early'), 'outputs', 'avtime-bench'), 'normalize');
    const r = avtimeReport(await loadAvtimeRun(early));
    assert.equal(r.scored, false);
    assert.deepEqual(r.scores, []);
    assert.equal(r.traces, 0);
  });

  it('filters queries by direction, axis, video and id text, capped by the limit', async () => {
    const run = await loadAvtimeRun(root);
    assert.deepEqual(
      listQueries(run, { direction: 'e2e' }).shown.map((q) => q.query_id),
      ['q_e2e_A', 'q_e2e_V'],
    );
    assert.deepEqual(
      listQueries(run, { axis: 'V', video: 'vid_1' }).shown.map((q) => q.query_id),
      ['q_e2t_V'],
    );
    assert.deepEqual(
      listQueries(run, { text: 'T2E' }).shown.map((q) => q.query_id),
      ['q_t2e_A', 'q_t2e_V'],
    );
    const capped = listQueries(run, {}, 4);
    assert.equal(capped.total, 6);
    assert.equal(capped.shown.length, 4);
  });

  it('a filter from the webview keeps only known fields and values', () => {
    assert.deepEqual(cleanFilter({ direction: 'e2t', axis: 'X', video: 'vid_0', text: 7, extra: 'x' }), { direction: 'e2t', video: 'vid_0' });
    assert.deepEqual(cleanFilter(null), {});
    assert.deepEqual(cleanFilter('e2t'), {});
  });

  it('t2e: the active events marked, the judge answer by its response id, score = s / 4', async () => {
    const d = queryDetail(await loadAvtimeRun(root), 'q_t2e_A');
    assert.deepEqual(d.reference, { direction: 't2e', time_ms: 4500, captions: ['a man talks'] });
    assert.deepEqual(
      d.events!.map((e) => e.marks),
      [[], ['active'], ['active']],
    );
    assert.equal(d.events![0].caption, 'a dog barks <b>loudly</b>');
    assert.equal(d.judge!.response_id, sha('q_t2e_A', 1));
    assert.deepEqual(d.judge!.response, { score: 3 });
    assert.equal(d.judgeMissing, false);
    assert.equal(fact(d.arithmetic, 'active ids (start_ms ≤ t < end_ms)'), '1, 2');
    assert.equal(fact(d.arithmetic, 'active intervals (ms)'), '[2000, 5000) ∪ [4000, 8000)');
    assert.equal(fact(d.arithmetic, 'score = s / 4'), '0.7500');
  });

  it('e2t: selected ids, the union, |∩|, |∪| and tIoU', async () => {
    const d = queryDetail(await loadAvtimeRun(root), 'q_e2t_A');
    assert.deepEqual(
      d.events!.map((e) => e.marks),
      [[], ['selected'], ['selected']],
    );
    assert.equal(fact(d.arithmetic, '∪ selected (ms)'), '[2000, 8000)');
    assert.equal(fact(d.arithmetic, 'tIoU = |∩| / |∪|'), '3500 / 6000 = 0.5833');
  });

  it('e2e: both selections, the bounds, τ and both relation tests (a retry-pass answer found by its id)', async () => {
    const d = queryDetail(await loadAvtimeRun(root), 'q_e2e_V');
    assert.deepEqual(
      d.events!.map((e) => e.marks),
      [[], ['A'], ['B']],
    );
    assert.equal(d.judge!.pass, 2);
    assert.equal(fact(d.arithmetic, 'τ = ⌈D / 100⌉'), '100 ms (D = 10000 ms)');
    assert.equal(fact(d.arithmetic, 'before iff hi(U_a) ≤ lo(U_b) + τ'), '5000 ≤ 4100: no');
    assert.equal(fact(d.arithmetic, 'after iff lo(U_a) ≥ hi(U_b) − τ'), '2000 ≥ 7900: no');
    assert.equal(fact(d.arithmetic, 'predicted relation'), 'overlap');
    assert.equal(fact(d.arithmetic, 'reference relation'), 'after');
    assert.equal(d.entry.score, 0);
  });

  it('a prediction failure has no events and no judge; a trace naming an absent response says so', async () => {
    const run = await loadAvtimeRun(root);
    const f = queryDetail(run, 'q_e2t_V');
    assert.equal(f.events, null);
    assert.equal(f.judge, null);
    assert.equal(fact(f.arithmetic, 'score'), '0');
    fs.writeFileSync(path.join(root, 'semantic_responses.jsonl'), '');
    const gone = queryDetail(await loadAvtimeRun(root), 'q_e2e_A');
    assert.equal(gone.judge, null);
    assert.equal(gone.judgeMissing, true);
    assert.throws(() => queryDetail(run, 'nope'), /no query nope/);
  });

  it('a bad trace line is reported with file and line, the rest still read', async () => {
    fs.appendFileSync(path.join(root, 'eval', RUN_ID, 'e2t_trace.jsonl'), '{"direction":"e2t"}\n');
    const r = avtimeReport(await loadAvtimeRun(root));
    assert.equal(r.traces, 6);
    assert.equal(r.problems.length, 1);
    assert.match(r.problems[0], /e2t_trace\.jsonl:3: /);
  });
});
