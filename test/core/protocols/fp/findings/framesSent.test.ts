import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { meanFramesByCell } from '../../../../../src/core/protocols/fp/findings/charts/framesSent';

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
