import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ladderPoints } from '../../../../../src/core/protocols/fp/findings/charts/ladders';
import { chartFileName, chartsMarkdown, renderSvg, writeFindingsCharts } from '../../../../../src/core/protocols/fp/findings/charts/svg';
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

  it('writes the overview and one card per benchmark beside the report, and links them from Markdown', async () => {
    const files = await writeFindingsCharts(dir, f, ladders);
    assert.equal(files.length, f.benchmarks.length + 1);
    assert.deepEqual((await fs.readdir(dir)).sort(), files.map((x) => x.file).sort());
    const overview = await fs.readFile(path.join(dir, 'findings-overview.svg'), 'utf8');
    for (const b of f.benchmarks.filter((x) => x.verdict !== 'pending'))
      assert.ok(overview.includes(b.benchmark.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')), b.benchmark);
    assert.ok(!overview.includes('>Partial<'), 'a pending benchmark is not placed');
    const md = chartsMarkdown(files).join('\n');
    assert.ok(md.includes('![Hurts \\& \\<Co\\>](findings-06-Hurts_Co_.svg)'), md);
  });
});
