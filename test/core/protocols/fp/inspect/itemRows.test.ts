// A benchmark's (an item's) CSV rows read from the lines naming it (a quote-free CSV) are the rows the whole-file
// read gives.
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../../../src/core/errors';
import { benchmarkRows, itemRows, wholeBenchmarkRows } from '../../../../../src/core/protocols/fp/inspect/itemRecords';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';

describe('item inspector: one item’s CSV rows', () => {
  let layout: PackageLayout;
  const write = async (lines: string[], end = '\n') => fs.writeFile(layout.resultsCsv, lines.join('\n') + end);
  const both = async (b: string, item: string) => [
    Object.fromEntries(await itemRows(layout, b, item)),
    Object.fromEntries((await wholeBenchmarkRows(layout, b)).get(item) ?? new Map()),
  ];

  beforeEach(async () => {
    layout = new PackageLayout(await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-itemrows-')));
    await fs.mkdir(layout.resultsDir, { recursive: true });
  });
  afterEach(() => fs.rm(layout.root, { recursive: true, force: true }));

  const HEADER = 'benchmark,item_id,condition,status,pred,answer,correct';
  it('gives the rows of the whole-file read: exact ids (not a prefix), first row of a key, another benchmark apart', async () => {
    await write([HEADER, 'MV,MV_1,v_1,ok,A,A,1', 'MV,MV_10,v_1,ok,B,A,0', 'LV,MV_1,v_1,ok,C,A,0', 'MV,MV_1,v_32,ok,D,A,0', 'MV,MV_1,v_1,ok,B,A,0']);
    const [mine, whole] = await both('MV', 'MV_1');
    assert.deepEqual(mine, whole);
    assert.deepEqual(Object.keys(mine).sort(), ['v_1', 'v_32']);
    assert.equal(mine.v_1.pred, 'A', 'the first row of a key counts');
  });

  it('sets a torn last line aside as the whole-file read does, and reads a CSV with quotes whole', async () => {
    await write([HEADER, 'MV,MV_1,v_1,ok,A,A,1', 'MV,MV_1,v_32,ok,D'], '');
    let [mine, whole] = await both('MV', 'MV_1');
    assert.deepEqual(mine, whole);
    assert.deepEqual(Object.keys(mine), ['v_1']);
    await write([HEADER, 'MV,"MV,1",v_1,ok,A,A,1', 'MV,MV_2,v_1,ok,"x\ny",A,0']);
    [mine, whole] = await both('MV', 'MV,1');
    assert.deepEqual(mine, whole);
    assert.deepEqual(Object.keys(mine), ['v_1']);
  });

  it("gives a benchmark's rows, every item, as the whole-file read does (the list to pick an item from)", async () => {
    await write([HEADER, 'MV,MV_1,v_1,ok,A,A,1', 'MV,MV_10,v_1,ok,B,A,0', 'LV,MV_1,v_1,ok,C,A,0', 'MV,MV_1,v_32,ok,D,A,0', 'LVMV,x,v_1,ok,A,A,1']);
    const flat = (m: Map<string, Map<string, Record<string, string>>>) => [...m].map(([k, v]) => [k, Object.fromEntries(v)]);
    assert.deepEqual(flat(await benchmarkRows(layout, 'MV')), flat(await wholeBenchmarkRows(layout, 'MV')));
    assert.deepEqual([...(await benchmarkRows(layout, 'MV')).keys()], ['MV_1', 'MV_10']);
  });

  it('refuses a header without the key columns as the whole-file read does', async () => {
    await write(['benchmark,item,condition', 'MV,MV_1,v_1']);
    await assert.rejects(itemRows(layout, 'MV', 'MV_1'), InputError);
  });
});
