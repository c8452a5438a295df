// Issue 43 with the Gemini backend: a caption run cancelled as a scheduler does (Slurm's scancel with
// proctrack/linuxproc: SIGTERM to the CLI and to every child at once) while a video's validation ffprobe runs: the
// run drains, the video whose ffprobe was killed is no failure (no outcome, no `failed:` line; it stays to do), and
// the run requeued ends with the outcomes and captions of one uncancelled run. The CLI runs as a process of its own
// (as the job script execs it); the stand-in Gemini API runs here. The test waits for states, not for time.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cancelDuringGatedChild, gatedChild, spawnCli } from '../../../helpers/scancel';
import { captionOutcomes } from '../../../helpers/videoOutcomes';
import { startStandinGemini, type StandinGemini } from '../../../../src/standins/gemini/server';
import { addVideo, makeClipMedia, tmpRoot } from './videosRoot';
import { geminiCaptionArgs } from './geminiArgs';

const KEY = 'AIzaSyCancel-Secret-0123456789abcd';
const STEMS = ['v00', 'v01', 'v02'];

describe('fpsweep avtime caption --backend gemini: cancelled as a scheduler does, then requeued (issue 43)', function () {
  this.timeout(300_000);
  let base: string;
  let g: StandinGemini;

  before(async () => {
    base = tmpRoot('gemini-cancel-');
    const media = makeClipMedia(tmpRoot('gemini-cancel-media-'));
    for (const stem of STEMS) addVideo(path.join(base, 'videos'), stem, media, 2);
    g = await startStandinGemini({ apiKey: KEY });
  });
  after(async () => {
    await g?.close();
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('an ffprobe killed by the cancel is no failure; requeued, the outcomes and captions of one uncancelled run', async () => {
    const root = path.join(base, 'root');
    const args = geminiCaptionArgs(root, g.url);
    const env = { GEMINI_API_KEY: KEY };
    // The uncancelled run, at the same path.
    fs.cpSync(path.join(base, 'videos'), root, { recursive: true });
    const whole = await spawnCli(args, env).exited;
    assert.equal(whole.code, 0, whole.out);
    const want = await captionOutcomes(root, STEMS);
    assert.deepEqual(
      Object.values(want).map((o) => o.state),
      STEMS.map(() => 'completed'),
    );

    // The cancelled run: v01's ffprobe waits (while the gate exists) and says its pid.
    fs.rmSync(root, { recursive: true });
    fs.cpSync(path.join(base, 'videos'), root, { recursive: true });
    const ffprobe = await gatedChild(base, 'ffprobe', { match: '/v01/', slow: 'wait' });
    const cli = spawnCli(args, { ...env, FFPROBE_BIN: ffprobe.file });
    const cancelled = await cancelDuringGatedChild(cli, ffprobe, "v01's ffprobe");
    assert.match(cancelled.out, /stop requested \((SIGTERM|a child was stopped from outside)/, cancelled.out);
    assert.doesNotMatch(cancelled.out, /v0\d: failed/, 'no video failed');
    const after = await captionOutcomes(root, STEMS);
    assert.notEqual(after.v01.state, 'completed', 'v01 was cut short');
    for (const stem of STEMS) assert.notEqual(after[stem].state, 'failed', `${stem}: ${cancelled.out}`);

    // Requeued: the same command, to the end.
    const rerun = await spawnCli(args, env).exited;
    assert.equal(rerun.code, 0, rerun.out);
    assert.doesNotMatch(rerun.out, /v0\d: failed/);
    assert.deepEqual(await captionOutcomes(root, STEMS), want, 'the outcomes and captions of one uncancelled run');
  });
});
