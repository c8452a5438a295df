// Issue 43: a scheduler's cancel (Slurm's `scancel` with proctrack/linuxproc signals SIGTERM to every process of the
// job at once: the worker and its ffmpeg decodes) drains the run and logs no false failure; the run requeued then
// ends with the failures of one uncancelled run, no more (no "decode … exit 255" line, no no_video line twice).
// The signals go to the real processes; the test waits for states (a decode running, the worker gone), not for time.
// A drain ends the decodes under way and starts none: a decode the cancel's signal missed (one started between the
// scheduler's look at the processes and the worker's own SIGTERM) kept the worker for the whole video's decode, and
// `fpsweep stop` (SIGTERM to the worker alone) waited for every decode under way. A wait that runs out says what the
// worker was doing (its /proc state, its children, its log, Node's report).
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS } from '../sample/fixture';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { isWorkerAlive, readLock } from '../../../../../src/core/runner/control';
import { pidAlive } from '../../../../../src/core/runner/lock';
import { main as cliMain } from '../../../../../src/cli/main';
import { captureOutput } from '../../../../helpers/captureOutput';
import { waitFor } from '../../../../helpers/waitFor';
import { descendants, gatedBin } from '../../../../helpers/scancel';
import { explainProcess, reportOnSignal } from '../../../../helpers/procExplain';
import { artifactKey, assertConsistent, readArtifacts, rowKeySet, startStandin, withEnv, type Standin } from './helpers';

const BENCHES = ['MVBench', 'NExTQA', 'EgoSchema'];
const CONDS = ['v_blind', 'v_1', 'v_8_s224', 'v_32_s168'];

interface FailureLine {
  benchmark: string;
  item_id: string;
  condition: string;
  kind: string;
  message: string;
}
async function failures(layout: PackageLayout): Promise<FailureLine[]> {
  const text = await fs.readFile(layout.failuresLog, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}
const counted = (fs: FailureLine[]) =>
  fs
    .map((f) => `${f.benchmark}/${f.item_id}/${f.condition} ${f.kind}`)
    .sort()
    .join('\n');

describe('fp sweep: cancelled as a scheduler does (SIGTERM to every process), then requeued (issue 43)', function () {
  this.timeout(300_000);
  let server: Standin;
  let work: string;
  let ref: { code: number; layout: PackageLayout; failures: FailureLine[] };
  const args = (root: string) => ['run', '--package', root, '--bench', BENCHES.join(','), '--conds', CONDS.join(','), '--endpoints', server.url];

  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    await getSamplePackage();
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-cancel-'));
    server = await startStandin({ env: { FPSWEEP_STANDIN_LATENCY: 'a=0,b=0' } });
    // The uncancelled run: the reference.
    const whole = await copySamplePackage();
    const out = await captureOutput(() => cliMain(args(whole.root)));
    assert.ok([0, 1].includes(out.code), out.out + out.err);
    const layout = new PackageLayout(whole.root);
    ref = { code: out.code, layout, failures: await failures(layout) };
  });
  after(async () => {
    await server?.stop();
    await fs.rm(work, { recursive: true, force: true });
  });

  /** `run --detach` with `ffmpeg` as its ffmpeg; the worker's Node report can be asked for (SIGUSR2). */
  async function startWorker(root: string, ffmpeg: string): Promise<{ worker: number; layout: PackageLayout; reports: string }> {
    const layout = new PackageLayout(root);
    const reports = await fs.mkdtemp(path.join(work, 'reports-'));
    const started = await withEnv({ FFMPEG_BIN: ffmpeg, NODE_OPTIONS: reportOnSignal(reports) }, () =>
      captureOutput(() => cliMain([...args(root), '--detach'])),
    );
    assert.equal(started.code, 0, started.out + started.err);
    return { worker: (await readLock(layout))!.pid, layout, reports };
  }

  /** The worker's decodes (stand-ins that wrote their pid into `pids`) now running. */
  async function decodesOf(worker: number, pids: string): Promise<number[]> {
    const mine = new Set(await descendants(worker));
    return (await fs.readdir(pids)).map(Number).filter((p) => mine.has(p));
  }

  /** Waits for the worker's end (a zombie has ended: pidAlive); a wait that runs out says what it was doing. */
  async function waitGone(w: { worker: number; layout: PackageLayout; reports: string }): Promise<void> {
    await waitFor(async () => !(await isWorkerAlive(w.layout)) && !pidAlive(w.worker), 120_000, 'the stopped worker gone').catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await explainProcess(w.worker, { log: w.layout.runnerLog, logLines: 60, reportDir: w.reports })}`);
    });
  }

  /** After the stop: it said why, it logged no false failure, and no decode of it outlived it. */
  async function assertDrained(layout: PackageLayout, pids: string, stop: RegExp): Promise<void> {
    const log = await fs.readFile(layout.runnerLog, 'utf8');
    assert.match(log, stop, log);
    assert.deepEqual(
      (await failures(layout)).filter((f) => f.kind !== 'no_video'),
      [],
      'no failure line but the sample’s videos that are missing: no "decode … exit 255", no server_down',
    );
    const left = (await fs.readdir(pids)).map(Number).filter(pidAlive);
    assert.deepEqual(left, [], `no decode of the stopped worker still runs: ${left.join(', ')}`);
  }

  /** Requeued: the same command, to the end, gives the rows and failure lines of the uncancelled run. */
  async function assertRequeueEqualsReference(fixture: Awaited<ReturnType<typeof copySamplePackage>>): Promise<void> {
    const layout = new PackageLayout(fixture.root);
    const rerun = await captureOutput(() => cliMain(args(fixture.root)));
    assert.equal(rerun.code, ref.code, rerun.out + rerun.err);
    const a = await readArtifacts(layout);
    assertConsistent(a, new Set(fixture.plan.existing.map((e) => artifactKey(e.benchmark, e.item_id, e.condition))));
    assert.deepEqual([...rowKeySet(a)].sort(), [...rowKeySet(await readArtifacts(ref.layout))].sort(), 'the same rows as the uncancelled run');
    assert.equal(counted(await failures(layout)), counted(ref.failures), 'the same failure lines as the uncancelled run, none twice');
  }

  it('drains, logs no false failure; requeued, it ends with the rows and failures of one uncancelled run', async () => {
    // The cancelled run: its ffmpeg reads at a fifth of the video's rate and a decode (`-progress`: not the GPU probe's
    // `ffmpeg -hwaccels`, which the old check took for one) says its pid, so the cancel lands while one is under way.
    const cancelled = await copySamplePackage();
    const pids = path.join(work, 'ffmpeg-pids');
    await fs.mkdir(pids);
    const slow = path.join(work, 'slow-ffmpeg');
    const decoding = `case "$*" in *-progress*) touch '${pids}'/$$;; esac`;
    await fs.writeFile(slow, `#!/bin/sh\n${decoding}\nexec ffmpeg -readrate 0.2 "$@"\n`, { mode: 0o755 });
    const w = await startWorker(cancelled.root, slow);
    await waitFor(async () => (await decodesOf(w.worker, pids)).length > 0, 120_000, 'an ffmpeg decode of the worker running');
    // scancel, as proctrack/linuxproc delivers it: SIGTERM to the worker and to each of its descendants.
    for (const p of [w.worker, ...(await descendants(w.worker))]) process.kill(p, 'SIGTERM');
    await waitGone(w);
    await assertDrained(w.layout, pids, /stop requested \((SIGTERM|a child was stopped from outside)/);
    await assertRequeueEqualsReference(cancelled);
  });

  it('`fpsweep stop` (SIGTERM to the worker alone) ends the decodes under way: the worker exits; requeued, nothing lost', async () => {
    // Once the pre-flight is done, each ffmpeg the worker starts is held (waits while the gate exists) and says its
    // pid: the stop finds decodes under way that no signal of ours reaches. The old drain waited for them for ever.
    const stopped = await copySamplePackage();
    const gate = path.join(work, 'gate');
    const pids = path.join(work, 'held-pids');
    const held = path.join(work, 'held-ffmpeg');
    await gatedBin(held, 'ffmpeg', { gate, pids, slow: 'wait', match: '-progress' });
    const w = await startWorker(stopped.root, held);
    try {
      await waitFor(async () => /pre-flight ok/.test(await fs.readFile(w.layout.runnerLog, 'utf8')), 120_000, 'the pre-flight done');
      await fs.writeFile(gate, '');
      await waitFor(async () => (await decodesOf(w.worker, pids)).length > 0, 120_000, 'a held decode of the worker');
      process.kill(w.worker, 'SIGTERM');
      await waitGone(w);
    } finally {
      await fs.rm(gate, { force: true }); // a worker that did not stop them finishes its decodes and ends
    }
    await assertDrained(w.layout, pids, /stop requested \(SIGTERM\)/);
    await assertRequeueEqualsReference(stopped);
  });
});
