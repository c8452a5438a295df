// The user's cutter runs as a process group of its own (runner/processGroup.ts): a stop ends the processes the cutter
// started (AVCut's ffmpeg), not only the cutter; and a cutter left running by a worker killed with SIGKILL is ended
// by the next run, before it cuts anything (cutterRecords.ts), with a line in the log.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { runCli } from '../../../helpers/captureOutput';
import { waitFor } from '../../../helpers/waitFor';
import { commandCutter } from '../../../../src/core/protocols/cut/cutter';
import { readCutterRecords } from '../../../../src/core/protocols/cut/cutterRecords';
import { CutLayout } from '../../../../src/core/protocols/cut/layout';
import { isWorkerAlive, readLock } from '../../../../src/core/runner/control';
import { groupRuns, processStartTicks } from '../../../../src/core/runner/processGroup';
import { tmpRoot } from '../caption/videosRoot';
import { cutWorkspace, FAKE_AVCUT } from './fakeAvcut';

/** The pids the fake's children wrote, by stem. */
function childPids(file: string): Map<string, number> {
  const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];
  return new Map(lines.map((l) => [l.split(' ')[0], Number(l.split(' ')[1])]));
}

describe('the user cutter as a process group', function () {
  this.timeout(120_000);
  let work: string;
  const leftover: number[] = [];

  beforeEach(() => {
    work = tmpRoot('cut-group-');
    process.env.FAKE_AVCUT_GATE = path.join(work, 'gate');
    process.env.FAKE_AVCUT_CHILDREN = path.join(work, 'children.txt');
  });
  afterEach(() => {
    // Whatever a failed assertion left running goes with the test.
    for (const pid of leftover.splice(0)) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    for (const k of ['FAKE_AVCUT_MEDIA', 'FAKE_AVCUT_CALLS', 'FAKE_AVCUT_PLAN', 'FAKE_AVCUT_GATE', 'FAKE_AVCUT_CHILDREN']) delete process.env[k];
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('a stop ends the cutter and the processes it started', async () => {
    const { input } = cutWorkspace(work, ['v.mp4'], { v: 'hold-child' });
    const cutter = commandCutter([process.execPath, FAKE_AVCUT, '{input}', '--output-root', '{staging}'], null);
    const stop = new AbortController();
    let pgid = 0;
    const result = cutter.cut({
      stem: 'v',
      input: path.join(input, 'v.mp4'),
      staging: path.join(work, 'staging'),
      gpu: null,
      log: new PassThrough().resume(),
      signal: stop.signal,
      started: async (id) => {
        pgid = id;
        leftover.push(id);
      },
    });
    const child = await waitFor(() => childPids(process.env.FAKE_AVCUT_CHILDREN!).get('v'), 30_000, "the cutter's own child started");
    assert.ok(pgid > 0 && (await groupRuns(pgid)), 'the group runs');
    assert.notEqual(await processStartTicks(child), null, 'its child runs');
    stop.abort();
    assert.deepEqual(await result, { ok: false, reason: 'stopped before the cutter finished' });
    await waitFor(async () => !(await groupRuns(pgid)), 10_000, 'the whole group ended');
    assert.equal(await processStartTicks(child), null, "the cutter's child ended with it");
  });

  it('a rerun ends the cutter a SIGKILLed worker left running, before it cuts, and says so; the video is cut', async () => {
    const { input, output } = cutWorkspace(work, ['a-held.mp4'], { 'a-held': 'hold-child' });
    const layout = new CutLayout(output);
    const cutter = `${process.execPath} ${FAKE_AVCUT} {input} --output-root {staging}`;
    const args = ['avtime', 'cut', '--input-root', input, '--output-root', output, '--cutter', cutter];
    const started = await runCli([...args, '--tick-ms', '100', '--detach']);
    assert.equal(started.code, 0, started.out + started.err);
    const [record] = await waitFor(
      async () => {
        const r = await readCutterRecords(layout);
        return r.length ? r : null;
      },
      60_000,
      "the cutter's record",
    );
    leftover.push(record.pgid);
    const child = await waitFor(() => childPids(process.env.FAKE_AVCUT_CHILDREN!).get('a-held'), 30_000, "the cutter's child started");
    const lock = await readLock(layout.runRoot);
    assert.ok(lock);
    // As the OOM killer does: the worker alone. Its cutter and the cutter's child run on, orphaned.
    process.kill(lock.pid, 'SIGKILL');
    await waitFor(async () => !(await isWorkerAlive(layout.runRoot)), 30_000, 'the killed worker gone');
    assert.ok(await groupRuns(record.pgid), 'the orphaned cutter still runs');
    assert.equal(record.startTicks, await processStartTicks(record.pgid));

    fs.writeFileSync(process.env.FAKE_AVCUT_PLAN!, '{}'); // the rerun's cut of a-held is not held
    const rerun = await runCli(args);
    assert.equal(rerun.code, 0, rerun.out + rerun.err);
    assert.equal(await groupRuns(record.pgid), false, 'the orphaned group ended');
    assert.equal(await processStartTicks(child), null, "the orphan's child ended too");
    assert.match(rerun.out + rerun.err, new RegExp(`ended the cutter of a-held \\(process group ${record.pgid}\\) that run ${record.runId} left behind`));
    assert.deepEqual(await readCutterRecords(layout), [], 'no record left');
    assert.ok(fs.existsSync(path.join(output, 'a-held', 'segments.json')), 'a-held cut by the rerun');
  });
});
