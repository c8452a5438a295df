// Issue 42, point 2, for the cut: the user's cutter (and the built-in cutter's ffmpeg, through the same job) writes
// only where nothing can be planted. Its {staging} is a fresh folder made by us in `.staging/<stem>/`, mode 0700
// whatever the umask (it used to be `.staging/<stem>/<runId>/`, 0777 under umask 0: anyone could plant a link in it),
// with an unpredictable name (the run's id and 16 random hex); the published folder is opened up again as a folder
// we make. A cutter that records what it was given shows it.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { cutWorkspace, FAKE_AVCUT } from '../../protocols/cut/fakeAvcut';
import { CutLayout } from '../../../../src/core/protocols/cut/layout';
import { hostileDir, removeHostileDirs } from './hostileFiles';

/** Records its {staging} and that folder's mode, then runs the fake AVCut into it; v2's output is moved up into
 * {staging} itself (as the built-in cutter writes it), so that folder is the one published. */
const RECORDING_CUTTER = `
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const [record, fake, input, flag, staging] = process.argv.slice(2);
fs.appendFileSync(record, JSON.stringify({ staging, mode: fs.statSync(staging).mode & 0o777 }) + '\\n');
const status = spawnSync(process.execPath, [fake, input, flag, staging], { stdio: 'inherit' }).status;
if (input.endsWith('v2.mp4')) {
  for (const n of fs.readdirSync(path.join(staging, 'v2'))) fs.renameSync(path.join(staging, 'v2', n), path.join(staging, n));
  fs.rmdirSync(path.join(staging, 'v2'));
}
process.exit(status ?? 1);
`;

describe('cut staging: the cutter writes into a fresh private folder of ours (issue 42, point 2)', function () {
  this.timeout(60_000);
  after(() => {
    for (const k of ['FAKE_AVCUT_MEDIA', 'FAKE_AVCUT_CALLS', 'FAKE_AVCUT_PLAN']) delete process.env[k];
    removeHostileDirs();
  });

  it('under umask 0: {staging} is 0700, in .staging/<stem>/, named <runId>-<16 hex>, one per video; published folders 0777 (ours opened up)', async () => {
    const work = hostileDir('cut-staging-');
    const { input, output } = cutWorkspace(work, ['v1.mp4', 'v2.mp4'], {});
    const cutter = path.join(work, 'recordingCutter.cjs');
    const record = path.join(work, 'staging.jsonl');
    fs.writeFileSync(cutter, RECORDING_CUTTER);
    const old = process.umask(0);
    let r;
    try {
      const template = `${process.execPath} ${cutter} ${record} ${FAKE_AVCUT} {input} --output-root {staging}`;
      r = await runCli(['avtime', 'cut', '--input-root', input, '--output-root', output, '--cutter', template]);
    } finally {
      process.umask(old);
    }
    assert.equal(r.code, 0, r.out + r.err);
    const layout = new CutLayout(output);
    const seen = fs
      .readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { staging: string; mode: number });
    assert.equal(seen.length, 2);
    for (const s of seen) {
      assert.equal(s.mode.toString(8), '700', `${s.staging}: private`);
      const stem = path.basename(path.dirname(s.staging));
      assert.equal(path.dirname(s.staging), layout.stemStagingDir(stem), 'in the video staging folder');
      assert.match(path.basename(s.staging), /^cut-[0-9a-z]+-\d+-[0-9a-f]{16}$/, 'the run id and 16 random hex');
      assert.equal((fs.statSync(layout.finalDir(stem)).mode & 0o777).toString(8), '777', 'published as a folder we make (umask 0)');
    }
    const random = seen.map((s) => path.basename(s.staging).slice(-16));
    assert.notEqual(random[0], random[1]);
  });
});
