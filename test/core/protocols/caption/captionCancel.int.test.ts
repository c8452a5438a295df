// Issue 43: a caption run cancelled as a scheduler does (Slurm's scancel with proctrack/linuxproc: SIGTERM to the CLI
// and to every child at once) while a video's ffprobe runs: the run drains, the video whose ffprobe was killed is no
// failure (it stays to do), and the run requeued ends with the outcomes and captions of one uncancelled run. The
// CLI runs as a process of its own (as the job script execs it); the test waits for states (the ffprobe under way,
// the CLI gone), not for time.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { cancelDuringGatedChild, gatedChild, gatedChildrenOf, spawnCli } from '../../../helpers/scancel';
import { waitFor } from '../../../helpers/waitFor';
import { exitedWithin } from '../../../helpers/procExplain';
import { captionOutcomes } from '../../../helpers/videoOutcomes';
import { DEFAULT_CAPTION_MODEL } from '../../../../src/core/protocols/caption/cli/caption';
import { startStandin, type RunningStandin } from '../../serving/helpers';
import { addVideo, makeClipMedia, tmpRoot } from './videosRoot';

const VALID = ['v00', 'v01', 'v02', 'v03', 'v04'];
const INVALID = 'v05gap';
const STEMS = [...VALID, INVALID];

describe('fpsweep avtime caption: cancelled as a scheduler does (SIGTERM to every process), then requeued (issue 43)', function () {
  this.timeout(300_000);
  let base: string;
  let standin: RunningStandin;

  before(async () => {
    base = tmpRoot('caption-cancel-');
    const media = makeClipMedia(tmpRoot('caption-media-'));
    const videos = path.join(base, 'videos');
    for (const stem of VALID) addVideo(videos, stem, media, 2);
    addVideo(videos, INVALID, media, 2, { gapAfter: 0 });
    standin = await startStandin(['--served-model-name', DEFAULT_CAPTION_MODEL, '--allowed-local-media-path', base, '--max-model-len', '65536'], {
      FPSWEEP_STANDIN_LATENCY: 'a=0,b=0',
    });
  });
  after(async () => {
    await standin?.stop();
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('an ffprobe killed by the cancel is no failure; requeued, the outcomes and captions of one uncancelled run', async () => {
    const args = (root: string) => ['avtime', 'caption', root, '--base-url', standin.url, '--keep-going', '--tick-ms', '100', '--retry-delay-ms', '10'];
    // The uncancelled run, at the same path (the stand-in's answer depends on the clip's path).
    const root = path.join(base, 'root');
    fs.cpSync(path.join(base, 'videos'), root, { recursive: true });
    const whole = await runCli(args(root));
    assert.equal(whole.code, 1, whole.out + whole.err);
    const want = await captionOutcomes(root, STEMS);
    assert.deepEqual(
      Object.entries(want).map(([s, o]) => `${s} ${o.state}`),
      [...VALID.map((s) => `${s} completed`), `${INVALID} failed`],
    );

    // The cancelled run: v03's ffprobe waits (while the gate exists) and says its pid.
    fs.rmSync(root, { recursive: true });
    fs.cpSync(path.join(base, 'videos'), root, { recursive: true });
    const ffprobe = await gatedChild(base, 'ffprobe', { match: '/v03/', slow: 'wait' });
    const cli = spawnCli(args(root), { FFPROBE_BIN: ffprobe.file });
    const cancelled = await cancelDuringGatedChild(cli, ffprobe, "v03's ffprobe");
    assert.match(cancelled.out, /stop requested \((SIGTERM|a child was stopped from outside)/, cancelled.out);
    assert.doesNotMatch(cancelled.out, /v0\d: failed/, 'no valid video failed');
    const after = await captionOutcomes(root, STEMS);
    assert.notEqual(after.v03.state, 'completed', 'v03 was cut short');
    for (const stem of VALID) assert.notEqual(after[stem].state, 'failed', `${stem}: ${cancelled.out}`);

    // Requeued: the same command, to the end.
    const rerun = await runCli(args(root));
    assert.equal(rerun.code, whole.code, rerun.out + rerun.err);
    assert.doesNotMatch(rerun.out + rerun.err, /v0\d: failed/);
    assert.deepEqual(await captionOutcomes(root, STEMS), want, 'the outcomes and captions of one uncancelled run');
  });

  it("a stop (SIGTERM to the CLI alone) during a video's validation probes none of its other clips; the video stays to do", async () => {
    const args = (root: string) => ['avtime', 'caption', root, '--base-url', standin.url, '--keep-going', '--tick-ms', '100', '--retry-delay-ms', '10'];
    const root = path.join(base, 'root-stop');
    fs.cpSync(path.join(base, 'videos'), root, { recursive: true });
    // Every ffprobe call is written down; v03's wait (while the gate exists) and say their pid.
    const gate = path.join(base, 'gate-stop');
    const pids = path.join(base, 'held-ffprobe-pids');
    const calls = path.join(base, 'ffprobe-calls');
    const ffprobe = path.join(base, 'logging-ffprobe');
    fs.mkdirSync(pids);
    fs.writeFileSync(gate, '');
    fs.writeFileSync(
      ffprobe,
      `#!/bin/sh\necho "$*" >> '${calls}'\ncase "$*" in *'/v03/'*) if [ -e '${gate}' ]; then touch '${pids}'/$$; ` +
        `while [ -e '${gate}' ]; do sleep 0.05; done; fi;; esac\nexec ffprobe "$@"\n`,
      { mode: 0o755 },
    );
    const v03Calls = () =>
      fs
        .readFileSync(calls, 'utf8')
        .split('\n')
        .filter((l) => l.includes('/v03/')).length;
    const cli = spawnCli(args(root), { FFPROBE_BIN: ffprobe });
    await waitFor(
      async () => (await gatedChildrenOf(cli.child.pid!, pids)).length > 0,
      120_000,
      () => `v03's first ffprobe under way; the CLI printed:\n${cli.out()}`,
    );
    assert.equal(v03Calls(), 1, "the first of v03's probes is held");
    cli.child.kill('SIGTERM'); // as `fpsweep stop` or a Ctrl-C: the CLI alone, its ffprobe not signalled
    await waitFor(
      () => /stop requested \(SIGTERM\)/.test(cli.out()),
      120_000,
      () => `the stop taken; the CLI printed:\n${cli.out()}`,
    );
    fs.rmSync(gate); // the held probe ends as usual
    const stopped = await exitedWithin(cli, 120_000, 'the stopped CLI gone');
    assert.equal(v03Calls(), 1, `no other clip of v03 probed after the stop:\n${fs.readFileSync(calls, 'utf8')}`);
    assert.doesNotMatch(stopped.out, /v0\d: failed/, stopped.out);
    const after = await captionOutcomes(root, STEMS);
    assert.notEqual(after.v03.state, 'completed', 'v03 stays to do');
    for (const stem of VALID) assert.notEqual(after[stem].state, 'failed', `${stem}: ${stopped.out}`);
  });
});
