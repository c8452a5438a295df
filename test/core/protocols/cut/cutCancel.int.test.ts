// Issue 43: a cut cancelled as a scheduler does (Slurm's scancel with proctrack/linuxproc: SIGTERM to the CLI and to
// every child at once) while the builtin cutter's ffmpeg runs: the run drains, the video whose ffmpeg was killed
// (ffmpeg exits 255 after catching SIGTERM) is no failure (it stays to do), and the run requeued publishes what one
// uncancelled run publishes. The CLI runs as a process of its own (as the job script execs it); the test waits for
// states (the ffmpeg under way, the CLI gone), not for time.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { cancelDuringGatedChild, gatedChild, spawnCli } from '../../../helpers/scancel';
import { cutOutcomes } from '../../../helpers/videoOutcomes';
import { makeCutSample } from '../../../../src/core/protocols/cut/sample';
import { tmpRoot } from '../caption/videosRoot';

describe('fpsweep avtime cut: cancelled as a scheduler does (SIGTERM to every process), then requeued (issue 43)', function () {
  this.timeout(400_000);
  let work: string;
  let input: string;
  let stems: string[];
  before(async function () {
    this.timeout(120_000);
    work = tmpRoot('cut-cancel-');
    input = path.join(work, 'in');
    await makeCutSample(input);
    stems = fs
      .readdirSync(input)
      .map((f) => f.replace(/\.mp4$/, ''))
      .sort();
  });
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  it("the builtin's ffmpeg killed by the cancel is no failure; requeued, what one uncancelled run publishes", async () => {
    const out = path.join(work, 'out');
    const args = ['avtime', 'cut', '--input-root', input, '--output-root', out, '--cutter', 'builtin', '--tick-ms', '100'];
    const whole = await runCli(args);
    assert.equal(whole.code, 0, whole.out + whole.err);
    const want = await cutOutcomes(out, stems);
    assert.deepEqual(
      Object.values(want).map((o) => o.state),
      stems.map(() => 'completed'),
    );

    // The cancelled run: ffmpeg on cut_c_25s reads at a fifth of the rate and says its pid.
    fs.rmSync(out, { recursive: true });
    const ffmpeg = await gatedChild(work, 'ffmpeg', { match: 'cut_c_25s', slow: ['-readrate', '0.2'] });
    const cli = spawnCli(args, { FFMPEG_BIN: ffmpeg.file });
    const cancelled = await cancelDuringGatedChild(cli, ffmpeg, "cut_c_25s's ffmpeg");
    assert.match(cancelled.out, /stop requested \((SIGTERM|a child was stopped from outside)/, cancelled.out);
    assert.doesNotMatch(cancelled.out, /failed: /, cancelled.out);
    const after = await cutOutcomes(out, stems);
    assert.equal(after.cut_c_25s.state, 'running', 'cut_c_25s stays to do (read as interrupted)');
    for (const stem of stems) assert.notEqual(after[stem].state, 'failed', `${stem}: ${cancelled.out}`);

    // Requeued: the same command, to the end.
    const rerun = await runCli(args);
    assert.equal(rerun.code, 0, rerun.out + rerun.err);
    assert.deepEqual(await cutOutcomes(out, stems), want, 'what one uncancelled run publishes');
  });
});
