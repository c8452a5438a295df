// The data report panel's models (issue 26 point 6) from the files the real verbs write on the generated corpus:
// the strata, bins and histograms are recounted here from the files a different way, and a missing or malformed
// file gives a message naming it.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runBuildGrpo } from '../../../../../src/core/protocols/avtime/data/grpo/run';
import { runBuildSft } from '../../../../../src/core/protocols/avtime/data/sft/run';
import { runSplit } from '../../../../../src/core/protocols/avtime/data/split/run';
import { readDataReport } from '../../../../../src/extension/protocols/avtime/data/dataReportRead';
import type { BuildReportView, SplitReportView } from '../../../../../src/extension/protocols/avtime/data/dataReportTypes';
import { REPORT_THEME } from '../../../../../src/core/charts/chartTheme';
import { binsSpec, eventsSpec, strataSpec } from '../../../../../src/extension/protocols/avtime/data/dataCharts';
import { makeCorpus, type Corpus } from '../../../../core/protocols/avtime/data/corpus';

const lines = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');

describe('AVTime data reports: report file → panel model', function () {
  this.timeout(30_000);
  let c: Corpus;
  let split: string;
  let sftOut: string;
  let sftReport: string;
  let grpoReport: string;
  let grpoOut: string;

  after(() => fs.rmSync(c.dir, { recursive: true, force: true }));

  before(async () => {
    c = makeCorpus(200);
    split = path.join(c.dir, 'split');
    await runSplit({ source: c.source, outputRoot: split, expectedRows: c.retained, derive: { size: 60, seed: 'AVTime-50K-public-split-v1' } });
    sftOut = path.join(c.dir, 'sft', 'o.jsonl');
    sftReport = path.join(c.dir, 'sft', 'r.json');
    await runBuildSft({
      avtimeJsonl: path.join(split, 'train.jsonl'),
      longvaleJsonl: c.longvale,
      sampleCount: 0,
      seed: '20260702',
      outputJsonl: sftOut,
      reportJson: sftReport,
      benchRoot: c.benchRoot,
    });
    grpoOut = path.join(c.dir, 'grpo', 'o.jsonl');
    grpoReport = path.join(c.dir, 'grpo', 'r.json');
    await runBuildGrpo({ inputJsonl: sftOut, outputJsonl: grpoOut, reportJson: grpoReport, seed: '20260729', shuffle: true });
  });

  it("the split: counts, the test set's 25 strata as test_ids.jsonl has them, the bins, checks and every hash", async () => {
    const v = (await readDataReport(split, c.dir)) as SplitReportView;
    assert.equal(v.kind, 'split');
    const m = JSON.parse(fs.readFileSync(path.join(split, 'split_manifest.json'), 'utf8'));
    assert.deepEqual(v.counts, {
      rows_read: m.source.rows_read,
      rows_retained: c.retained,
      other_source: m.source.excluded.other_source,
      unknown_unlabeled: m.source.excluded.unknown_unlabeled,
      train: lines(path.join(split, 'train.jsonl')).length,
      test: 60,
    });
    assert.ok(v.counts.other_source > 0 && v.counts.unknown_unlabeled > 0);
    // Recounted by key from test_ids.jsonl; every one of the 25 cells present, in stratum order.
    const byKey = new Map<string, number>();
    for (const l of lines(path.join(split, 'test_ids.jsonl'))) {
      const r = JSON.parse(l);
      byKey.set(`${r.duration_bin}/${r.event_count_bin}`, (byKey.get(`${r.duration_bin}/${r.event_count_bin}`) ?? 0) + 1);
    }
    assert.equal(v.strata.length, 25);
    v.strata.forEach((s, i) => {
      assert.equal(5 * s.duration_bin + s.event_count_bin, i);
      assert.equal(s.rows, byKey.get(`${s.duration_bin}/${s.event_count_bin}`) ?? 0);
    });
    assert.ok(v.strata.filter((s) => s.rows > 0).length > 5, 'a derived test set spreads over the strata');
    // The strata's margins are the manifest's test distributions (two files, one split).
    for (let b = 0; b < 5; b++) {
      assert.equal(
        v.strata.filter((s) => s.duration_bin === b).reduce((n, s) => n + s.rows, 0),
        m.distributions.test.duration_bins[b],
      );
      assert.equal(
        v.strata.filter((s) => s.event_count_bin === b).reduce((n, s) => n + s.rows, 0),
        m.distributions.test.event_count_bins[b],
      );
    }
    assert.equal(v.bins.length, 20);
    assert.equal(
      v.bins.filter((b) => b.split === 'train' && b.axis === 'duration').reduce((n, b) => n + b.rows, 0),
      v.counts.train,
    );
    assert.deepEqual(
      v.checks.map((k) => k.ok),
      [true, true, true],
    );
    assert.deepEqual(
      v.files.map((f) => f.name),
      ['source', 'train.jsonl', 'test.jsonl', 'test_ids.jsonl'],
    );
    assert.equal(v.files[0].sha256, m.source.sha256);
    // The same view from the manifest's own path; the specs carry the cells as data.
    assert.deepEqual(await readDataReport(path.join(split, 'split_manifest.json'), c.dir), v);
    const cells = (strataSpec(v.strata).data as { values: { rows: number; ink: string }[] }).values;
    assert.deepEqual(
      cells.map(({ ink: _, ...c }) => c),
      v.strata,
    );
    const max = Math.max(...v.strata.map((s) => s.rows));
    assert.ok(cells.every((c) => c.ink === (c.rows > max / 2 ? REPORT_THEME.surface : REPORT_THEME.foreground)));
    // Each split's shares of one axis add up to 1.
    const shares = (binsSpec(v.bins).data as { values: { split: string; axis: string; share: number }[] }).values;
    for (const split of ['train', 'test'])
      for (const axis of ['duration', 'event count'])
        assert.ok(Math.abs(shares.filter((b) => b.split === split && b.axis === axis).reduce((n, b) => n + b.share, 0) - 1) < 1e-9);
  });

  it("build-sft: counts by reason and the events-per-row histogram of its output's answers", async () => {
    const v = (await readDataReport(sftReport, c.dir)) as BuildReportView;
    const r = JSON.parse(fs.readFileSync(sftReport, 'utf8'));
    assert.equal(v.kind, 'sft');
    const count = (name: string) => v.counts.find((x) => x.name === name)?.value;
    assert.equal(count('written'), r.counts.written);
    assert.equal(count('skipped: avtime: no_events'), r.counts.skipped.avtime.no_events);
    assert.equal(count('events de-duplicated'), r.events.deduplicated);
    const recount = new Map<number, number>();
    for (const l of lines(sftOut)) {
      const n = (JSON.parse(l).messages[2].content.match(/^From \d\d to \d\d, /gm) ?? []).length;
      recount.set(n, (recount.get(n) ?? 0) + 1);
    }
    assert.deepEqual(
      v.histogram,
      [...recount.entries()].sort((a, b) => a[0] - b[0]).map(([events, rows]) => ({ events, rows })),
    );
    assert.equal(v.histogram![0].events, r.events.per_row.min);
    assert.equal(v.histogram![v.histogram!.length - 1].events, r.events.per_row.max);
    assert.equal(v.files.find((f) => f.name === 'output')!.sha256, r.output.sha256);
  });

  it("build-grpo: its counts and the histogram of its rows' solutions, which add up to the report's events", async () => {
    const v = (await readDataReport(grpoReport, c.dir)) as BuildReportView;
    const r = JSON.parse(fs.readFileSync(grpoReport, 'utf8'));
    assert.equal(v.kind, 'grpo');
    assert.equal(
      v.histogram!.reduce((n, b) => n + b.events * b.rows, 0),
      r.counts.events,
    );
    assert.equal(
      v.histogram!.reduce((n, b) => n + b.rows, 0),
      r.counts.written,
    );
    assert.deepEqual(
      v.settings.find((s) => s.name === 'order'),
      { name: 'order', value: 'seeded rank' },
    );
    // The chart fills the counts between the least and the most with empty bars.
    const filled = (
      eventsSpec([
        { events: 1, rows: 2 },
        { events: 4, rows: 1 },
      ]).data as { values: unknown[] }
    ).values;
    assert.deepEqual(filled, [
      { events: 1, rows: 2 },
      { events: 2, rows: 0 },
      { events: 3, rows: 0 },
      { events: 4, rows: 1 },
    ]);
  });

  it('a missing or malformed file is a message naming it (and the line), never a blank panel', async () => {
    await assert.rejects(readDataReport(path.join(c.dir, 'nope'), c.dir), /nope: no such file or folder \(run the step that writes it first\)/);
    const empty = path.join(c.dir, 'empty-split');
    fs.mkdirSync(empty);
    await assert.rejects(readDataReport(empty, c.dir), /empty-split\/split_manifest\.json: no such file/);

    const bad = path.join(c.dir, 'bad-split');
    fs.cpSync(split, bad, { recursive: true });
    const m = JSON.parse(fs.readFileSync(path.join(bad, 'split_manifest.json'), 'utf8'));
    m.cut_points.duration_ms = [1, 2];
    fs.writeFileSync(path.join(bad, 'split_manifest.json'), JSON.stringify(m));
    await assert.rejects(readDataReport(bad, c.dir), /bad-split\/split_manifest\.json: cut_points\.duration_ms: Array must contain exactly 4/);

    fs.cpSync(split, path.join(c.dir, 'bad-ids'), { recursive: true });
    const ids = path.join(c.dir, 'bad-ids', 'test_ids.jsonl');
    const idLines = lines(ids);
    idLines[2] = idLines[2].replace(/"event_count_bin":\d/, '"event_count_bin":7');
    fs.writeFileSync(ids, idLines.join('\n') + '\n');
    await assert.rejects(
      readDataReport(path.join(c.dir, 'bad-ids'), c.dir),
      /bad-ids\/test_ids\.jsonl:3: event_count_bin: Number must be less than or equal to 4/,
    );

    const notJson = path.join(c.dir, 'not.json');
    fs.writeFileSync(notJson, '{"schema_version": ');
    await assert.rejects(readDataReport(notJson, c.dir), /not\.json: not valid JSON/);
    const other = path.join(c.dir, 'other.json');
    fs.writeFileSync(other, '{"schema_version": "x"}');
    await assert.rejects(readDataReport(other, c.dir), /other\.json: schema_version is not one of/);

    // A report whose output is gone still shows its counts, and says why there is no histogram.
    const moved = path.join(c.dir, 'moved.json');
    const r = JSON.parse(fs.readFileSync(grpoReport, 'utf8'));
    r.output.path = 'gone.jsonl';
    fs.writeFileSync(moved, JSON.stringify(r));
    const v = (await readDataReport(moved, c.dir)) as BuildReportView;
    assert.equal(v.histogram, null);
    assert.match(v.histogramError!, /gone\.jsonl: no such file \(the output the report names\)/);
    assert.equal(v.counts.find((x) => x.name === 'written')!.value, r.counts.written);
  });
});
