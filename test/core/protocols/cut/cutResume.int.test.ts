// Resume (SPEC-AVTIME-DATA §2): the detached cut worker and its cutter killed with SIGKILL while a video is being
// cut, after another was published; a rerun repeats no completed video, and a touched source is cut again.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { waitFor } from '../../../helpers/waitFor';
import { CutLayout } from '../../../../src/core/protocols/cut/layout';
import { readVideoState } from '../../../../src/core/protocols/cut/videoState';
import { isWorkerAlive, readLock } from '../../../../src/core/runner/control';
import { tmpRoot } from '../caption/videosRoot';
import { callsOf, cutWorkspace, FAKE_AVCUT } from './fakeAvcut';

describe('fpsweep avtime cut: kill -9 mid-run, then rerun', function () {
  this.timeout(120_000);
  let work: string;

  before(() => {
    work = tmpRoot('cut-resume-');
  });
  after(() => {
    for (const k of ['FAKE_AVCUT_MEDIA', 'FAKE_AVCUT_CALLS', 'FAKE_AVCUT_PLAN', 'FAKE_AVCUT_GATE']) delete process.env[k];
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('repeats no completed video, and cuts a touched source again', async () => {
    const { input, output, calls } = cutWorkspace(work, ['a-first.mp4', 'b-held.mp4', 'c-last.mp4'], { 'b-held': 'hold' });
    process.env.FAKE_AVCUT_GATE = path.join(work, 'gate');
    const layout = new CutLayout(output);
    // --max-jobs 1: the videos go in order, so a-first is published before b-held starts (and is held).
    const args = [
      'avtime',
      'cut',
      '--input-root',
      input,
      '--output-root',
      output,
      '--cutter',
      `${process.execPath} ${FAKE_AVCUT} {input} --output-root {staging}`,
    ];
    const started = await runCli([...args, '--max-jobs', '1', '--tick-ms', '100', '--detach']);
    assert.equal(started.code, 0, started.out + started.err);
    await waitFor(async () => (await readVideoState(layout, 'a-first'))?.state === 'completed', 60_000, 'a-first published by the worker');
    await waitFor(() => callsOf(calls).some((l) => l.startsWith('b-held ')), 30_000, 'b-held handed to the cutter (and held)');
    const lock = await readLock(layout.runRoot);
    assert.ok(lock, 'the worker holds the lock');
    // The worker's whole group (it runs in its own session). The cutter runs in a group of its own: it is left held,
    // orphaned, and the rerun ends it before it cuts (cutterGroup.int.test.ts shows that part).
    process.kill(-lock.pid, 'SIGKILL');
    await waitFor(async () => !(await isWorkerAlive(layout.runRoot)), 30_000, 'the killed worker gone');
    const published = fs.readFileSync(path.join(output, 'a-first', 'segments.json'), 'utf8');
    assert.equal(fs.existsSync(path.join(output, 'b-held')), false, 'nothing of b-held published');
    const status = JSON.parse((await runCli(['status', '--package', output, '--run-type', 'cut', '--json'])).out);
    assert.deepEqual(
      status.videos.map((v: { stem: string; state: string }) => `${v.stem} ${v.state}`),
      ['a-first completed', 'b-held pending', 'c-last pending'],
    );

    fs.writeFileSync(process.env.FAKE_AVCUT_PLAN!, '{}'); // the rerun's cut of b-held is not held (the orphan still is)
    fs.writeFileSync(calls, '');
    const rerun = await runCli(args);
    assert.equal(rerun.code, 0, rerun.out + rerun.err);
    assert.deepEqual(
      callsOf(calls)
        .map((l) => l.split(' ')[0])
        .sort(),
      ['b-held', 'c-last'],
      'a-first is not cut again',
    );
    assert.equal(fs.readFileSync(path.join(output, 'a-first', 'segments.json'), 'utf8'), published);
    assert.deepEqual(fs.readdirSync(layout.stagingBase), []);

    // A touched source (same bytes, new mtime) is cut again; the others are not.
    const t = new Date(Date.now() + 5000);
    fs.utimesSync(path.join(input, 'c-last.mp4'), t, t);
    fs.writeFileSync(calls, '');
    const again = await runCli(args);
    assert.equal(again.code, 0, again.out + again.err);
    assert.deepEqual(
      callsOf(calls).map((l) => l.split(' ')[0]),
      ['c-last'],
    );
  });
});
