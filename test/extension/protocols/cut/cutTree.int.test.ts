// The cut's tree rows from the engine half (issue 27 point 6): a real `fpsweep avtime cut` with a fake AVCut (one
// good video, one whose cutter crashes, one degraded kept by --allow-degraded), then the output root found the way
// the tree follows a root a runbook step made (findRoots of the root itself), read by readProgress, drawn as rows.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { PROTOCOLS } from '../../../../src/core/protocols/registry';
import type { CutProgressDetail } from '../../../../src/core/protocols/cut/progressTypes';
import type { ProgressSnapshot } from '../../../../src/core/protocols/types';
import { cutRootRow } from '../../../../src/extension/protocols/cut/cutTreeRows';
import { runCli } from '../../../helpers/captureOutput';
import { tmpRoot } from '../../../core/protocols/caption/videosRoot';
import { cutWorkspace, FAKE_AVCUT } from '../../../core/protocols/cut/fakeAvcut';

describe('the cut tree from a real cut (issue 27 point 6)', function () {
  this.timeout(120_000);
  let work: string;

  before(() => {
    work = tmpRoot('cut-tree-');
  });
  after(() => {
    for (const k of ['FAKE_AVCUT_MEDIA', 'FAKE_AVCUT_CALLS', 'FAKE_AVCUT_PLAN']) delete process.env[k];
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('shows the output root: the crash failed with its reason, the degraded cut said on its row and the root', async () => {
    const { input, output } = cutWorkspace(work, ['good.mp4', 'crash.mp4', 'degrade.mp4'], { crash: 'crash', degrade: 'degrade' });
    const cutter = `${process.execPath} ${FAKE_AVCUT} {input} --output-root {staging}`;
    const r = await runCli(['avtime', 'cut', '--input-root', input, '--output-root', output, '--cutter', cutter, '--allow-degraded']);
    assert.equal(r.code, 1, r.out + r.err);

    const cut = PROTOCOLS.get('cut')!;
    const real = fs.realpathSync(output);
    assert.deepEqual(await cut.findRoots(real), [real], 'the root a step made is found at itself');
    const row = cutRootRow((await cut.readProgress(real)) as ProgressSnapshot<CutProgressDetail>);
    assert.equal(row.contextValue, 'cutRun');
    assert.match(row.description ?? '', /^failed · degraded · 2 completed \(1 degraded\), 0 running, 1 failed, 0 pending$/);
    const videos = new Map(row.children.flatMap((g) => g.children.map((v) => [v.label, { group: g.label, text: v.description ?? '' }])));
    assert.equal(videos.get('crash')?.group, '1 failed');
    assert.match(videos.get('crash')!.text, /exit|crash/i);
    assert.match(videos.get('degrade')!.text, /^\d+ segments? · degraded \(no audio_events\)/);
    assert.doesNotMatch(videos.get('good')!.text, /degraded/);
  });
});
