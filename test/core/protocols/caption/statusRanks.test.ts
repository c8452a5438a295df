// `fpsweep status --package VIDEOS_ROOT` sums every rank of a sharded caption run (SPEC-AVTIME-DATA §3, Progress):
// two ranks' states under .fpsweep-caption/rank-K-of-2/, the per-video outcomes shared under .fpsweep-caption/videos/.
// A video is running only while a live rank (its lock held by a live pid on this host) lists it; an ended rank's
// last running list counts for nothing.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { statusVerb } from '../../../../src/cli/verbs/status';
import { shardRankOf } from '../../../../src/core/clips/shard';
import { CaptionLayout } from '../../../../src/core/protocols/caption/layout';
import type { CaptionProgressDetail } from '../../../../src/core/protocols/caption/progressTypes';
import { readCaptionView } from '../../../../src/core/protocols/caption/progress';
import { captionStatusSchema, videoOutcomeSchema, type CaptionStatus } from '../../../../src/core/protocols/caption/schemas';
import { PROTOCOLS } from '../../../../src/core/protocols/registry';
import { captureOutput } from '../../../helpers/captureOutput';

const writeJson = (file: string, v: unknown) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(v) + '\n');
};

function rankStatus(rank: number, pid: number, state: CaptionStatus['state'], running: CaptionStatus['running']): CaptionStatus {
  return captionStatusSchema.parse({
    runId: `run-r${rank}`,
    pid,
    state,
    rank,
    of: 2,
    selected: 3,
    completed: 0,
    failed: 0,
    running,
    stopRequested: null,
    summary: state === 'done' ? `rank ${rank + 1}/2 ended` : null,
  });
}

describe('caption status: two ranks summed', () => {
  let root: string;
  // Stems of each rank under --shard K/2 (shard.ts's hash), so each rank lists only its own videos.
  const stems = Array.from({ length: 40 }, (_, i) => `video-${String(i).padStart(2, '0')}`);
  const ofRank = (r: number) => stems.filter((s) => shardRankOf(s, 2) === r);
  const [r0, r1] = [ofRank(0), ofRank(1)];
  const tracked = [r0[0], r0[1], r0[2], r1[0], r1[1], r1[2]].sort();
  const live = { stem: r0[0], clips: 5, clipsDone: 2 };
  const failedR0 = { stem: r0[1], reason: 'clip 3: the answer has no events after 3 attempts' };
  const failedR1 = { stem: r1[0], reason: 'HTTP 400 from http://127.0.0.1:8001: context length exceeded' };
  const completed = r1[1];
  // r1[1] completed, r0[2] and r1[2] pending (r1[2] was in rank 2's last running list, but rank 2 has ended).

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-caption-ranks-'));
    for (const s of tracked) writeJson(path.join(root, s, 'segments.json'), { segments: [] });
    fs.mkdirSync(path.join(root, 'notes'));
    const layout = new CaptionLayout(root);
    const outcome = (stem: string, state: 'completed' | 'failed', reason: string | null, rank: number) =>
      writeJson(
        layout.outcomeFile(stem),
        videoOutcomeSchema.parse({ stem, state, signature: 'sig', reason, clips: 4, runId: `run-r${rank}`, rank, at: '2026-12-05T05:00:00Z' }),
      );
    outcome(failedR0.stem, 'failed', failedR0.reason, 0);
    outcome(failedR1.stem, 'failed', failedR1.reason, 1);
    outcome(completed, 'completed', null, 1);
    // Rank 1/2 live: its lock names this process (alive, this host), as a worker's does.
    const rank1 = new CaptionLayout(root, { index: 1, count: 2 }).runRoot;
    writeJson(rank1.lockFile, { pid: process.pid, hostname: os.hostname(), startedAt: new Date().toISOString(), runId: 'run-r0' });
    writeJson(rank1.statusFile, rankStatus(0, process.pid, 'running', [live]));
    // Rank 2/2 ended: no lock; its last status still lists a video it was on.
    const rank2 = new CaptionLayout(root, { index: 2, count: 2 }).runRoot;
    writeJson(rank2.statusFile, rankStatus(1, 999_999, 'done', [{ stem: r1[2], clips: 4, clipsDone: 1 }]));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it("status --json: total, completed, running (the live rank's), failed with reasons, pending, untracked, both ranks", async () => {
    const { code, out } = await captureOutput(() => statusVerb(['--package', root, '--json'], PROTOCOLS));
    assert.equal(code, 0);
    const d = JSON.parse(out) as CaptionProgressDetail;
    assert.deepEqual(
      { total: d.total, completed: d.completed, running: d.running, failed: d.failed, pending: d.pending, untracked: d.untracked },
      { total: 6, completed: 1, running: 1, failed: 2, pending: 2, untracked: ['notes'] },
    );
    const by = new Map(d.videos.map((v) => [v.stem, v]));
    assert.deepEqual(by.get(live.stem), { stem: live.stem, state: 'running', clips: 5, clipsDone: 2, reason: null, rank: 0 });
    assert.deepEqual(
      d.videos.filter((v) => v.state === 'failed').map((v) => [v.stem, v.reason, v.rank]),
      [
        [failedR0.stem, failedR0.reason, 0],
        [failedR1.stem, failedR1.reason, 1],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    assert.equal(by.get(completed)?.state, 'completed');
    // A pending video's clips are not counted (status reads no segments.json): null, never a made-up 0.
    assert.deepEqual(
      d.videos.filter((v) => v.state === 'pending').map((v) => [v.stem, v.clips]),
      [r0[2], r1[2]].sort().map((stem) => [stem, null]),
    );
    for (const v of d.videos) assert.equal(v.rank, shardRankOf(v.stem, 2), v.stem);
    assert.deepEqual(d.ranks, [
      { rank: 0, of: 2, runId: 'run-r0', live: true },
      { rank: 1, of: 2, runId: 'run-r1', live: false },
    ]);
  });

  it('status text: the sums, the ranks (which is live), the running video and each failure with its reason', async () => {
    const { code, out } = await captureOutput(() => statusVerb(['--package', root], PROTOCOLS));
    assert.equal(code, 0);
    const lines = out.trimEnd().split('\n');
    assert.deepEqual(lines.slice(0, 3), [
      `caption ${root}: running (worker alive)`,
      '  total 6, completed 1, running 1, failed 2, pending 2, untracked 1',
      '  ranks: 1/2 live, 2/2',
    ]);
    assert.ok(lines.includes(`  running ${live.stem}: 2/5 clips`), out);
    assert.ok(lines.includes(`  failed ${failedR0.stem}: ${failedR0.reason}`), out);
    assert.ok(lines.includes(`  failed ${failedR1.stem}: ${failedR1.reason}`), out);
    assert.ok(lines.includes('  untracked (no segments.json): notes'), out);
  });

  it("with no rank live: nothing running, the ended rank's list ignored, state from the outcomes (failed)", async () => {
    const rank1 = new CaptionLayout(root, { index: 1, count: 2 }).runRoot;
    const lock = fs.readFileSync(rank1.lockFile, 'utf8');
    fs.rmSync(rank1.lockFile);
    try {
      const v = await readCaptionView(root);
      assert.equal(v.live, false);
      assert.equal(v.state, 'failed');
      assert.deepEqual([v.detail.running, v.detail.pending, v.detail.failed, v.detail.completed], [0, 3, 2, 1]);
    } finally {
      fs.writeFileSync(rank1.lockFile, lock);
    }
  });
});

describe('caption status --wait on a sharded run: a rank that writes its status is not hung', function () {
  this.timeout(20_000);
  let root: string;
  before(() => (root = fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-caption-wait-'))));
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it("--stale watches every rank's status file (there is no unsharded one): followed until the rank ends, exit 0", async () => {
    writeJson(path.join(root, 'v1', 'segments.json'), { segments: [] });
    const layout = new CaptionLayout(root);
    writeJson(
      layout.outcomeFile('v1'),
      videoOutcomeSchema.parse({ stem: 'v1', state: 'completed', signature: 's', reason: null, clips: 1, runId: 'r', rank: 0, at: 'now' }),
    );
    const rank = new CaptionLayout(root, { index: 1, count: 1 }).runRoot;
    writeJson(rank.lockFile, { pid: process.pid, hostname: os.hostname(), startedAt: new Date().toISOString() });
    // The rank's worker writes its status every 200 ms, as a live one does each second; after 15 writes (3 s: past
    // --stale 1 and a poll of --wait's) it ends and gives its lock back.
    let writes = 0;
    const worker = setInterval(() => {
      writeJson(rank.statusFile, rankStatus(0, process.pid, 'running', []));
      if (++writes === 15) {
        fs.rmSync(rank.lockFile, { force: true });
        clearInterval(worker);
      }
    }, 200);
    try {
      const res = await captureOutput(() => statusVerb(['--package', root, '--wait', '--stale', '1'], PROTOCOLS));
      assert.doesNotMatch(res.err, /looks hung/);
      assert.equal(res.code, 0, res.err);
      assert.ok(writes >= 15, `the verb returned after ${writes} status writes, before the rank ended`);
    } finally {
      clearInterval(worker);
    }
  });
});
