// Lanes per GPU through the real CLI: --jobs-per-gpu × the visible GPUs (CUDA_VISIBLE_DEVICES here; nvidia-smi on a
// GPU host), each of the user's cutter's runs pinned with CUDA_VISIBLE_DEVICES to one of them.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { runCli } from '../../../helpers/captureOutput';
import { tmpRoot } from '../caption/videosRoot';
import { callsOf, cutWorkspace, FAKE_AVCUT } from './fakeAvcut';

describe('fpsweep avtime cut: jobs pinned per GPU', function () {
  this.timeout(60_000);
  let work: string;
  const saved = process.env.CUDA_VISIBLE_DEVICES;
  before(() => {
    work = tmpRoot('cut-gpus-');
  });
  after(() => {
    if (saved === undefined) delete process.env.CUDA_VISIBLE_DEVICES;
    else process.env.CUDA_VISIBLE_DEVICES = saved;
    for (const k of ['FAKE_AVCUT_MEDIA', 'FAKE_AVCUT_CALLS', 'FAKE_AVCUT_PLAN']) delete process.env[k];
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('each cutter run gets one visible GPU, and every GPU is used', async () => {
    const { input, output, calls } = cutWorkspace(work, ['a.mp4', 'b.mp4', 'c.mp4', 'd.mp4'], {});
    process.env.CUDA_VISIBLE_DEVICES = '3,5';
    const cutter = `${process.execPath} ${FAKE_AVCUT} {input} --output-root {staging}`;
    const dry = JSON.parse(
      (await runCli(['avtime', 'cut', '--input-root', input, '--output-root', output, '--cutter', cutter, '--jobs-per-gpu', '1', '--dry-run', '--json'])).out,
    );
    assert.deepEqual(dry.lanes, ['3', '5']);
    const r = await runCli(['avtime', 'cut', '--input-root', input, '--output-root', output, '--cutter', cutter, '--jobs-per-gpu', '1']);
    assert.equal(r.code, 0, r.out + r.err);
    const gpus = callsOf(calls).map((l) => l.split(' ')[1]);
    assert.equal(gpus.length, 4);
    assert.ok(
      gpus.every((g) => g === '3' || g === '5'),
      `CUDA_VISIBLE_DEVICES seen: ${gpus.join(', ')}`,
    );
    assert.deepEqual([...new Set(gpus)].sort(), ['3', '5']);
  });
});
