// The real doors: `fpsweep avtime cut-sample` then `fpsweep avtime cut --cutter builtin` through the CLI; every
// published directory passes the §2 validator, is marked degraded (no ASR, no audio events) in its state and status,
// and a rerun cuts nothing.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { readmeCommand } from '../../../helpers/readmeCommand';
import { ffprobeClipProbe } from '../../../../src/core/clips/clipProbe';
import { issueText, validateVideoDir } from '../../../../src/core/clips/segments';
import { CutLayout } from '../../../../src/core/protocols/cut/layout';
import { readVideoState } from '../../../../src/core/protocols/cut/videoState';
import { tmpRoot } from '../caption/videosRoot';

describe('fpsweep avtime cut --cutter builtin (CLI)', function () {
  this.timeout(120_000);
  let work: string;
  before(() => {
    work = tmpRoot('cut-builtin-cli-');
  });
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  it('cuts the sample into valid, degraded video directories; a rerun cuts nothing', async () => {
    // README's data-path commands as written (test/cli/readmeCommands.test.ts holds README to them).
    const out = path.join(work, 'cut-out');
    const made = await runCli(readmeCommand('node dist/cli.js avtime cut-sample --out /tmp/cut-in', work));
    assert.equal(made.code, 0, made.err);
    const args = readmeCommand('node dist/cli.js avtime cut --input-root /tmp/cut-in --output-root /tmp/cut-out --cutter builtin', work);
    const r = await runCli(args);
    assert.equal(r.code, 0, r.out + r.err);
    const stems = fs.readdirSync(out).filter((d) => !d.startsWith('.'));
    assert.ok(stems.length >= 3, `published: ${stems.join(', ')}`);
    const layout = new CutLayout(out);
    for (const stem of stems) {
      const { issues } = await validateVideoDir(path.join(out, stem), ffprobeClipProbe());
      assert.deepEqual(issues.map(issueText), [], stem);
      assert.deepEqual((await readVideoState(layout, stem))?.degraded, ['asr', 'audio_events']);
    }
    const status = await runCli(['status', '--package', out, '--run-type', 'cut']);
    assert.match(status.out, new RegExp(`DEGRADED: ${stems.length} of the completed cuts ran without asr, audio_events`));
    const again = await runCli(args);
    assert.equal(again.code, 0);
    assert.match(again.out + again.err, /0 to cut/);
  });

  it("a file that is no video fails with the builtin's own words, not its log's banner", async () => {
    const sources = path.join(work, 'bad-sources');
    const out = path.join(work, 'bad-clips');
    fs.mkdirSync(sources);
    fs.writeFileSync(path.join(sources, 'not_a_video.mp4'), 'this is no video\n');
    const r = await runCli(['avtime', 'cut', '--input-root', sources, '--output-root', out, '--cutter', 'builtin']);
    assert.equal(r.code, 1, r.out + r.err);
    const state = await readVideoState(new CutLayout(out), 'not_a_video');
    assert.equal(state?.state, 'failed');
    assert.match(state!.reason!, /^the builtin cutter failed: ffprobe could not read .*not_a_video\.mp4.* \(log .*not_a_video\.log\)$/s);
    assert.doesNotMatch(state!.reason!, /Degraded/, "the log's degraded banner is not the reason");
  });
});
