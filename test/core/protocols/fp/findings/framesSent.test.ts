import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FramesSentTracker, meanFramesByCell } from '../../../../../src/core/protocols/fp/findings/charts/framesSent';

describe('mean frames sent per benchmark × condition', () => {
  let dir: string;
  before(async () => (dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fp-frames-sent-'))));
  after(async () => fs.rm(dir, { recursive: true, force: true }));

  it('averages n_frames over the ok rows only, whatever the column order, and ignores a torn last line', async () => {
    const file = path.join(dir, 'conditions_results.csv');
    await fs.writeFile(
      file,
      [
        'condition,benchmark,item_id,status,n_frames,correct',
        'v_fps1_s224,A,1,ok,100,1',
        'v_fps1_s224,A,2,ok,50,0',
        'v_fps1_s224,A,3,NA,,',
        'v_fps1_s224,A,4,reuse,999,1',
        'v_fps1_s224,B,1,ok,7,1',
        'v_32_s224,A,1,ok,32,1',
        'v_fps2_s224,A,1,ok,"12', // torn: an open quote at the end of the file
      ].join('\n'),
    );
    assert.deepEqual(await meanFramesByCell(file), { A: { v_fps1_s224: 75, v_32_s224: 32 }, B: { v_fps1_s224: 7 } });
  });

  it('gives nothing for a package without results yet', async () => {
    assert.deepEqual(await meanFramesByCell(path.join(dir, 'missing.csv')), {});
  });
});

/** The means by a plain split (the test rows hold no quotes), complete lines only: the reference. */
function plainMeans(text: string): Record<string, Record<string, number>> {
  const lines = text.split('\n').slice(0, -1);
  const head = lines.shift()!.split(',');
  const sums: Record<string, Record<string, [number, number]>> = {};
  for (const l of lines) {
    const r = Object.fromEntries(l.split(',').map((v, i) => [head[i], v]));
    if (r.status !== 'ok' || !(Number(r.n_frames) > 0)) continue;
    const s = ((sums[r.benchmark] ??= {})[r.condition] ??= [0, 0]);
    s[0]++;
    s[1] += Number(r.n_frames);
  }
  return Object.fromEntries(Object.entries(sums).map(([b, m]) => [b, Object.fromEntries(Object.entries(m).map(([c, [n, f]]) => [c, f / n]))]));
}

describe('mean frames sent, followed as the sweep appends', () => {
  let dir: string;
  before(async () => (dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fp-frames-tracker-'))));
  after(async () => fs.rm(dir, { recursive: true, force: true }));

  it('reads only what was appended, waits for a torn line, agrees with a plain count at every cut, and starts over on a shorter file', async () => {
    const file = path.join(dir, 'conditions_results.csv');
    const tracker = new FramesSentTracker(file);
    assert.deepEqual(await tracker.read(), {}, 'no file yet');
    await fs.writeFile(file, 'benchmark,item_id,condition,status,n_frames\nA,1,v_fps1_s224,ok,100\nA,2,v_fps1_s224,ok,5');
    assert.deepEqual(await tracker.read(), { A: { v_fps1_s224: 100 } }, 'the torn last row is not read yet');
    await fs.appendFile(file, '0\nA,3,v_fps1_s224,NA,\nB,1,v_8_s224,ok,8\n');
    const both = await tracker.read();
    assert.deepEqual(both, { A: { v_fps1_s224: 75 }, B: { v_8_s224: 8 } });
    // Random appends in random cuts agree with a full scan at every step.
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let pending = '';
    for (let i = 0; i < 40; i++) {
      pending += `B,${i},v_fps${1 + Math.floor(rnd() * 3)}_s224,${rnd() < 0.8 ? 'ok' : 'NA'},${1 + Math.floor(rnd() * 500)}\n`;
      const cut = Math.floor(rnd() * pending.length);
      await fs.appendFile(file, pending.slice(0, cut));
      pending = pending.slice(cut);
      assert.deepEqual(await tracker.read(), plainMeans(await fs.readFile(file, 'utf8')), `step ${i}`);
    }
    // Overlapping reads (two panels refreshing at once) count each appended row once.
    await fs.appendFile(file, pending + 'B,99,v_fps1_s224,ok,3\n');
    const [x, y] = await Promise.all([tracker.read(), tracker.read()]);
    assert.deepEqual(x, plainMeans(await fs.readFile(file, 'utf8')));
    assert.deepEqual(y, x);
    await fs.writeFile(file, 'benchmark,item_id,condition,status,n_frames\nC,1,v_32_s224,ok,32\n');
    assert.deepEqual(await tracker.read(), { C: { v_32_s224: 32 } });
  });
});
