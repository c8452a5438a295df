import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ladderPoints } from '../../../../../src/core/protocols/fp/findings/charts/ladders';
import { chartFileName, chartsMarkdown, renderSvg } from '../../../../../src/core/protocols/fp/findings/charts/svg';
import { writeReportCharts } from '../../../../../src/core/protocols/fp/findings/charts/reportCharts';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { ladderSpec } from '../../../../../src/core/protocols/fp/findings/charts/specs';
import { loadFindingsFixture } from './fixture';

describe('findings charts as SVG files', () => {
  const f = loadFindingsFixture();
  const ladders = Object.fromEntries(
    f.benchmarks.map((b) => [b.benchmark, ladderPoints(b, { 'v_fps0.25_s224': 30, 'v_fps0.5_s224': 60, v_fps1_s224: 120, v_fps2_s224: 240 })]),
  );
  let dir: string;
  before(async () => (dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fp-findings-svg-'))));
  after(async () => fs.rm(dir, { recursive: true, force: true }));

  it('draws a card headless in Node: one mark per ladder step, the benchmark name as escaped text', async () => {
    const b = f.benchmarks.find((x) => x.benchmark === 'Hurts & <Co>')!;
    const svg = await renderSvg(ladderSpec(b, ladders[b.benchmark]));
    assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.ok(svg.includes('Hurts &amp; &lt;Co&gt;'), 'the name is escaped');
    assert.ok(!svg.includes('<Co>'));
    // Points carry their datum in an aria description: count the symbols of the point layer.
    const points = svg.match(/role="graphics-symbol"[^>]*aria-roledescription="point"/g) ?? [];
    assert.equal(points.length, ladders[b.benchmark].length);
    assert.ok(svg.includes('chance 25.0') && svg.includes(`blind ${b.cells['v_blind'].acc!.toFixed(1)}`));
  });

  it('names chart files from benchmark names without ever leaving the folder', () => {
    assert.equal(chartFileName('MVBench', 0), 'findings-01-MVBench.svg');
    assert.equal(chartFileName('../../etc/passwd', 4), 'findings-05-etc_passwd.svg');
    assert.equal(chartFileName('a/b', 1), 'findings-02-a_b.svg');
    assert.notEqual(chartFileName('a/b', 1), chartFileName('a?b', 2));
    for (const name of ['..', '/', '\u0000', 'x'.repeat(300)]) assert.match(chartFileName(name, 0), /^findings-01-[A-Za-z0-9._-]{1,60}\.svg$/);
  });

  it('writes the overview and one card per benchmark beside the report, links them, and draws again only what changed', async () => {
    const pkg = path.join(dir, 'pkg');
    const reports = new PackageLayout(pkg).reportsDir;
    const first = await writeReportCharts(pkg, f);
    assert.equal(first.files.length, f.benchmarks.length + 1);
    assert.equal(first.drawn, f.benchmarks.length + 1);
    const svgs = (await fs.readdir(reports)).filter((x) => x.endsWith('.svg'));
    assert.deepEqual(svgs.sort(), first.files.map((x) => x.file).sort());
    const overview = await fs.readFile(path.join(reports, 'findings-overview.svg'), 'utf8');
    for (const b of f.benchmarks.filter((x) => x.verdict !== 'pending'))
      assert.ok(overview.includes(b.benchmark.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')), b.benchmark);
    assert.ok(!overview.includes('>Partial<'), 'a pending benchmark is not placed');
    const md = chartsMarkdown(first.files).join('\n');
    assert.ok(md.includes('![Hurts \\& \\<Co\\>](findings-06-Hurts_Co_.svg)'), md);

    // Unchanged findings: nothing drawn. One benchmark's accuracy moves: its card and nothing else (the overview
    // holds Δs, not cells). A benchmark gone: its file goes.
    assert.equal((await writeReportCharts(pkg, f)).drawn, 0);
    const moved = structuredClone(f);
    moved.benchmarks[1].cells['v_32_s336'].acc = 11;
    assert.equal((await writeReportCharts(pkg, moved)).drawn, 1);
    const fewer = { ...moved, benchmarks: moved.benchmarks.slice(0, -1) };
    await writeReportCharts(pkg, fewer);
    assert.ok(!(await fs.readdir(reports)).includes(chartFileName('Partial', 7)));
  });
});
