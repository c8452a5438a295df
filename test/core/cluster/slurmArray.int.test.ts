// Issue 43: the shipped Slurm job scripts on a real Slurm (one throwaway munged + slurmctld + slurmd on this host for
// every case, test/helpers/slurmCluster.ts), each submitted as docs/CLUSTER.md says, against the stand-ins:
// - examples/slurm/fp-sweep.sbatch, the stand-in vLLM: the FP array of 4; task 0 cancelled (scancel) while its ffmpeg
//   decodes, task 1's run killed with kill -9; merge refuses the gap naming both shards; both requeued; merged
//   complete, equal to the unsharded run, with its failure lines and no more;
// - examples/slurm/caption.sbatch, the stand-in vLLM as the caption server: the array of 2 over the caption sample;
//   task 1 cancelled while an ffprobe of its rank runs; requeued; every video's outcome and captions equal to the
//   unsharded run's, no valid video ever failed, and `status` sums both ranks;
// - examples/slurm/cut.sbatch, the builtin cutter: the array of 2 over the cut sample; task 1 cancelled while its
//   ffmpeg reads a video; requeued; what is published equals the unsharded cut, nothing failed, `status` sums both;
// - examples/slurm/avtime-run.sbatch with README's AVTime demo arguments: one job launching the stand-in vLLM as two
//   target shards and the judge; COMPLETED, the six scores said and shown by `status`.
// Waits for states (squeue/scontrol, the children under way), each bounded. Where Slurm is not installed it says
// SKIP, loudly, with how to install it.
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS } from '../protocols/fp/sample/fixture';
import { PackageLayout } from '../../../src/core/protocols/fp/package/layout';
import { pidAlive, readLock } from '../../../src/core/runner/lock';
import { main as cliMain } from '../../../src/cli/main';
import { captureOutput } from '../../helpers/captureOutput';
import { waitFor } from '../../helpers/waitFor';
import { slurmMissing, startSlurm, type SlurmCluster } from '../../helpers/slurmCluster';
import { freePortRange, REPO, readArtifacts, rowKeySet, startStandin, type Standin } from '../protocols/fp/sweep/helpers';
import { buildStandin, FAKE_VLLM, startStandin as startCaptionStandin, type RunningStandin } from '../serving/helpers';
import { makeAvtimeSample } from '../../../src/core/protocols/avtime/sample';
import { DEFAULT_CAPTION_MODEL } from '../../../src/core/protocols/caption/cli/caption';
import { makeCutSample } from '../../../src/core/protocols/cut/sample';
import { cliCommand, gatedBin, gatedChildrenOf } from '../../helpers/scancel';
import { captionOutcomes, cutOutcomes } from '../../helpers/videoOutcomes';
import { runCli } from '../../helpers/captureOutput';

const BENCHES = ['MVBench', 'NExTQA', 'EgoSchema'];
const CONDS = ['v_blind', 'v_1', 'v_8_s224', 'v_32_s168'];
const DONE = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL', 'OUT_OF_MEMORY', 'PREEMPTED']);

const failureLines = async (root: string) =>
  (await fs.readFile(new PackageLayout(root).failuresLog, 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .map((f) => `${f.benchmark}/${f.item_id}/${f.condition} ${f.kind}`)
    .sort();

describe('the shipped Slurm job scripts on a real Slurm (issue 43)', function () {
  this.timeout(900_000);
  const missing = slurmMissing();
  let slurm: SlurmCluster;
  let server: Standin;
  let work: string;
  let failed = false;

  before(async function () {
    if (missing) {
      process.stdout.write(`\n  *** SKIP the real-Slurm test: ${missing} ***\n\n`);
      this.skip();
    }
    this.timeout(SAMPLE_TIMEOUT_MS + 120_000);
    await getSamplePackage();
    slurm = await startSlurm();
    server = await startStandin({ env: { FPSWEEP_STANDIN_LATENCY: 'a=0,b=0' } });
    work = await fs.mkdtemp(path.join(slurm.dir, 'work-'));
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed') failed = true;
  });
  after(async () => {
    await server?.stop();
    await slurm?.stop();
    // A failure's messages point into the cluster's folder (the daemons' logs, the tasks' outputs and copies): kept.
    if (slurm && failed) process.stdout.write(`\n  kept for the failure: ${slurm.dir}\n`);
    else if (slurm) await fs.rm(slurm.dir, { recursive: true, force: true });
  });

  /** Waits until every task of `id` has one of `states`, and returns them. */
  async function ended(id: string, tasks: number[], ms: number): Promise<Map<number, string>> {
    let seen = new Map<number, string>();
    await waitFor(
      async () => {
        seen = await slurm.states(id);
        return tasks.every((t) => DONE.has(seen.get(t) ?? ''));
      },
      ms,
      () => `tasks ${tasks.join(',')} of job ${id} ended (states: ${JSON.stringify([...seen])}; logs in ${slurm.dir}/log)`,
      { pollMs: 1000 },
    );
    return seen;
  }

  /** `scontrol requeue` of `tasks`, let go at once (Slurm holds a requeued job ~2 minutes otherwise); waits until they run again. */
  async function requeue(id: string, tasks: number[]): Promise<void> {
    await slurm.cli('scontrol', ['requeue', tasks.map((t) => `${id}_${t}`).join(',')]);
    for (const t of tasks) await slurm.cli('scontrol', ['update', `jobid=${id}_${t}`, 'StartTime=now']);
    await waitFor(
      async () => {
        const s = await slurm.states(id);
        return tasks.every((t) => !DONE.has(s.get(t) ?? 'COMPLETED'));
      },
      60_000,
      `tasks ${tasks.join(',')} requeued`,
    );
  }

  /** Waits until a gated child (its pid in `pids/`, test/helpers/scancel.ts) is running (a zombie has ended). */
  async function childUnderWay(pids: string, what: string): Promise<void> {
    await waitFor(async () => (await fs.readdir(pids)).some((p) => pidAlive(Number(p))), 300_000, what, { pollMs: 500 });
  }

  /** A task's output file (--output=NAME-%A_%a.out, --open-mode=append: every run of the task). */
  const taskOut = (name: string, id: string, t: number) => fs.readFile(path.join(work, `${name}-${id}_${t}.out`), 'utf8').catch(() => '');

  it('FP array of 4: one task cancelled, one killed -9, merge refuses the gap; requeued, merged = the unsharded run', async () => {
    const args = ['--bench', BENCHES.join(','), '--conds', CONDS.join(','), '--endpoints', server.url];
    const whole = await copySamplePackage();
    const ref = await captureOutput(() => cliMain(['run', '--package', whole.root, ...args]));
    assert.ok([0, 1].includes(ref.code), ref.out + ref.err);

    const sample = await copySamplePackage();
    const pkg = path.join(work, 'fp');
    await fs.cp(sample.root, pkg, { recursive: true });
    // While the gate file exists, ffmpeg reads at a fifth of the rate and says its pid: decodes are under way.
    const gate = path.join(work, 'slow');
    const pids = path.join(work, 'ffmpeg-pids');
    await fs.mkdir(pids);
    await fs.writeFile(gate, '');
    const slow = path.join(work, 'slow-ffmpeg');
    await fs.writeFile(slow, `#!/bin/sh\nif [ -e '${gate}' ]; then touch '${pids}'/$$; exec ffmpeg -readrate 0.2 "$@"; fi\nexec ffmpeg "$@"\n`, {
      mode: 0o755,
    });
    const env = { FPSWEEP_PACKAGE: pkg, FPSWEEP: cliCommand().join(' '), FFMPEG_BIN: slow };
    const script = path.join(REPO, 'examples', 'slurm', 'fp-sweep.sbatch');
    const id = (await slurm.cli('sbatch', ['--parsable', `--chdir=${work}`, script, ...args], env)).trim().split(';')[0];
    const copy = (t: number) => path.join(`${pkg}.shards`, `task-${t}`);

    // Task 0: scancel while its ffmpeg decodes. Task 1: kill -9 of its run (the task's own process, exec'd).
    // A decode of task 0's own worker (not a pid file another task left): the scancel lands while it runs.
    await waitFor(
      async () => {
        const worker = (await readLock(new PackageLayout(copy(0))).catch(() => null))?.pid;
        return worker !== undefined && (await gatedChildrenOf(worker, pids)).some(pidAlive);
      },
      300_000,
      'task 0 running with a decode under way',
      { pollMs: 500 },
    );
    await slurm.cli('scancel', [`${id}_0`]);
    let victim = 0;
    await waitFor(async () => (victim = (await readLock(new PackageLayout(copy(1))).catch(() => null))?.pid ?? 0) > 0, 300_000, 'task 1 running', {
      pollMs: 500,
    });
    process.kill(victim, 'SIGKILL');
    await fs.rm(gate);
    const first = await ended(id, [0, 1, 2, 3], 600_000);
    assert.deepEqual([first.get(0), first.get(1), first.get(2), first.get(3)], ['CANCELLED', 'FAILED', 'COMPLETED', 'COMPLETED'], `${slurm.dir}/log`);
    assert.deepEqual(
      (await failureLines(copy(0))).filter((l) => !l.endsWith(' no_video')),
      [],
      'the cancelled task logged no false failure',
    );
    const copies = [0, 1, 2, 3].map(copy);
    const refused = await captureOutput(() => cliMain(['merge', '--into', pkg, ...copies]));
    assert.equal(refused.code, 1, refused.out + refused.err);
    assert.match(refused.err, new RegExp(`\\(${copy(0)}\\): \\d+ unit\\(s\\) still to do`));

    // Requeued, both resume their own copies.
    await requeue(id, [0, 1]);
    const second = await ended(id, [0, 1], 600_000);
    assert.deepEqual([second.get(0), second.get(1)], ['COMPLETED', 'COMPLETED'], `${slurm.dir}/log`);
    const st = await captureOutput(() => cliMain(['status', '--package', pkg, ...copies]));
    assert.equal(st.code, 0, st.out);
    const merged = await captureOutput(() => cliMain(['merge', '--into', pkg, ...copies]));
    assert.equal(merged.code, 0, merged.out + merged.err);
    assert.match(merged.out, /the plan is complete/);
    assert.deepEqual(
      [...rowKeySet(await readArtifacts(new PackageLayout(pkg)))].sort(),
      [...rowKeySet(await readArtifacts(new PackageLayout(whole.root)))].sort(),
    );
    assert.deepEqual(await failureLines(pkg), await failureLines(whole.root), 'the failures of one uncancelled run, no more');
  });
  it('caption array of 2: task 1 cancelled while an ffprobe of its rank runs, requeued; = the unsharded run, status sums both ranks', async () => {
    const sample = path.join(work, 'caption-sample');
    const made = await runCli(['avtime', 'caption-sample', '--out', sample]);
    assert.equal(made.code, 0, made.out + made.err);
    const stems = ['video_a', 'video_b', 'video_c', 'video_d', 'video_gap'];
    const server: RunningStandin = await startCaptionStandin(
      ['--served-model-name', DEFAULT_CAPTION_MODEL, '--allowed-local-media-path', work, '--max-model-len', '65536'],
      { FPSWEEP_STANDIN_LATENCY: 'a=0,b=0' },
    );
    try {
      // The unsharded run, at the path the array then runs on (the stand-in's answer depends on the clip's path).
      const root = path.join(work, 'videos');
      await fs.cp(sample, root, { recursive: true });
      const whole = await runCli(['avtime', 'caption', root, '--keep-going', '--base-url', server.url]);
      assert.equal(whole.code, 1, whole.out + whole.err);
      const want = await captionOutcomes(root, stems);
      assert.deepEqual(
        stems.map((s) => want[s].state),
        ['completed', 'completed', 'completed', 'completed', 'failed'],
      );
      await fs.rm(root, { recursive: true });
      await fs.cp(sample, root, { recursive: true });

      // Rank 2/2 (task 1) holds video_a, b, d and the invalid video_gap; its ffprobe of video_d waits while the gate is there.
      const gate = path.join(work, 'caption-gate');
      const pids = path.join(work, 'ffprobe-pids');
      const ffprobe = path.join(work, 'slow-ffprobe');
      await fs.writeFile(gate, '');
      await gatedBin(ffprobe, 'ffprobe', { gate, pids, match: '/video_d/', slow: 'wait' });
      const env = { FPSWEEP_VIDEOS: root, FPSWEEP: cliCommand().join(' '), FFPROBE_BIN: ffprobe };
      const script = path.join(REPO, 'examples', 'slurm', 'caption.sbatch');
      const id = (await slurm.cli('sbatch', ['--parsable', `--chdir=${work}`, script, '--base-url', server.url], env)).trim().split(';')[0];
      await childUnderWay(pids, "task 1's ffprobe of video_d under way");
      await slurm.cli('scancel', [`${id}_1`]);
      await waitFor(async () => (await slurm.states(id)).get(1) !== 'RUNNING', 60_000, 'task 1 cancelled');
      await fs.rm(gate);
      const first = await ended(id, [0, 1], 300_000);
      assert.deepEqual([first.get(0), first.get(1)], ['COMPLETED', 'CANCELLED'], `${slurm.dir}/log`);
      const cut = await captionOutcomes(root, stems);
      for (const s of ['video_a', 'video_b', 'video_c', 'video_d']) assert.notEqual(cut[s].state, 'failed', `${s}: ${await taskOut('fpsweep-caption', id, 1)}`);
      assert.notEqual(cut.video_d.state, 'completed', 'video_d was cut short');
      const part = await captureOutput(() => cliMain(['status', '--package', root, '--run-type', 'caption']));
      assert.match(part.out, /total 5, completed \d, running 0, failed \d, pending [1-9]/, part.out);

      await requeue(id, [1]);
      const second = await ended(id, [1], 300_000);
      // Task 1 holds the invalid video: with --keep-going its run ends 1 (FAILED in Slurm's accounting), as unsharded.
      assert.equal(second.get(1), 'FAILED', `${slurm.dir}/log`);
      assert.deepEqual(await captionOutcomes(root, stems), want, 'the outcomes and captions of the unsharded run');
      const out = (await taskOut('fpsweep-caption', id, 0)) + (await taskOut('fpsweep-caption', id, 1));
      assert.doesNotMatch(out, /video_[abcd]: failed/, out);
      assert.match(out, /stop requested \((SIGTERM|a child was stopped from outside)/, out);
      const st = await captureOutput(() => cliMain(['status', '--package', root, '--run-type', 'caption']));
      assert.match(st.out, /total 5, completed 4, running 0, failed 1, pending 0/, st.out);
      assert.match(st.out, /ranks: 1\/2, 2\/2/, st.out);
    } finally {
      await server.stop();
    }
  });

  it('cut array of 2: task 1 cancelled while its ffmpeg reads a video, requeued; = the unsharded cut, status sums both ranks', async () => {
    const input = path.join(work, 'cut-in');
    await makeCutSample(input);
    const stems = ['cut_a_short', 'cut_b_8s', 'cut_c_25s', 'cut_d_40s'];
    const out = path.join(work, 'cut-out');
    const whole = await runCli(['avtime', 'cut', '--input-root', input, '--output-root', out, '--cutter', 'builtin']);
    assert.equal(whole.code, 0, whole.out + whole.err);
    const want = await cutOutcomes(out, stems);
    assert.deepEqual(
      stems.map((s) => want[s].state),
      stems.map(() => 'completed'),
    );
    await fs.rm(out, { recursive: true });

    // Rank 2/2 (task 1) holds cut_a_short, cut_c_25s and cut_d_40s; ffmpeg on cut_c_25s reads at a fifth of the rate.
    const gate = path.join(work, 'cut-gate');
    const pids = path.join(work, 'cut-ffmpeg-pids');
    const ffmpeg = path.join(work, 'slow-cut-ffmpeg');
    await fs.writeFile(gate, '');
    await gatedBin(ffmpeg, 'ffmpeg', { gate, pids, match: 'cut_c_25s', slow: ['-readrate', '0.2'] });
    const env = { FPSWEEP_CUT_INPUT: input, FPSWEEP_CUT_OUTPUT: out, FPSWEEP: cliCommand().join(' '), FFMPEG_BIN: ffmpeg };
    const script = path.join(REPO, 'examples', 'slurm', 'cut.sbatch');
    const id = (await slurm.cli('sbatch', ['--parsable', `--chdir=${work}`, script, '--cutter', 'builtin'], env)).trim().split(';')[0];
    await childUnderWay(pids, "task 1's ffmpeg on cut_c_25s under way");
    await slurm.cli('scancel', [`${id}_1`]);
    await waitFor(async () => (await slurm.states(id)).get(1) !== 'RUNNING', 60_000, 'task 1 cancelled');
    await fs.rm(gate);
    const first = await ended(id, [0, 1], 300_000);
    assert.deepEqual([first.get(0), first.get(1)], ['COMPLETED', 'CANCELLED'], `${slurm.dir}/log`);
    const cut = await cutOutcomes(out, stems);
    for (const s of stems) assert.notEqual(cut[s].state, 'failed', `${s}: ${await taskOut('fpsweep-cut', id, 1)}`);
    assert.equal(cut.cut_c_25s.state, 'running', 'cut_c_25s stays to do (read as interrupted)');
    const part = await captureOutput(() => cliMain(['status', '--package', out, '--run-type', 'cut']));
    assert.match(part.out, /total 4, completed \d, running 0, failed 0, pending [1-9]/, part.out);

    await requeue(id, [1]);
    const second = await ended(id, [1], 300_000);
    assert.equal(second.get(1), 'COMPLETED', `${slurm.dir}/log`);
    assert.deepEqual(await cutOutcomes(out, stems), want, 'what the unsharded cut publishes');
    const logs = (await taskOut('fpsweep-cut', id, 0)) + (await taskOut('fpsweep-cut', id, 1));
    assert.doesNotMatch(logs, /failed: /, logs);
    assert.match(logs, /stop requested \((SIGTERM|a child was stopped from outside)/, logs);
    const st = await captureOutput(() => cliMain(['status', '--package', out, '--run-type', 'cut']));
    assert.match(st.out, /total 4, completed 4, running 0, failed 0, pending 0/, st.out);
    assert.match(st.out, /ranks: 1\/2, 2\/2/, st.out);
  });
  it('avtime-run.sbatch: one job, the stand-in vLLM launched as two target shards and the judge; status gives the six scores', async () => {
    await buildStandin();
    const bench = path.join(work, 'avtime-bench');
    await makeAvtimeSample({ out: bench });
    const out = path.join(work, 'avtime-out');
    const [target, judge] = [await freePortRange(2), await freePortRange(1)];
    const env = {
      FPSWEEP_BENCH_ROOT: bench,
      FPSWEEP_OUTPUT_ROOT: out,
      FPSWEEP: cliCommand().join(' '),
      VLLM_BIN: FAKE_VLLM,
      FPSWEEP_STANDIN_LATENCY: 'a=0,b=0,shared=0',
    };
    // README's AVTime demo's arguments, after the script.
    const args = ['--target-gpus', '0;1', '--target-tp', '1', '--judge-gpus', '0', '--judge-tp', '1'];
    args.push('--target-model', 'Qwen/Qwen3-Omni-30B-A3B-Instruct', '--judge-model', 'Qwen/Qwen3.6-27B');
    args.push('--target-base-port', String(target), '--judge-base-port', String(judge));
    const script = path.join(REPO, 'examples', 'slurm', 'avtime-run.sbatch');
    const id = (await slurm.cli('sbatch', ['--parsable', `--chdir=${work}`, script, ...args], env)).trim().split(';')[0];
    let state = '';
    await waitFor(
      async () => DONE.has((state = /JobState=(\S+)/.exec(await slurm.cli('scontrol', ['show', 'job', '-o', id]).catch(() => ''))?.[1] ?? '')),
      600_000,
      () => `job ${id} ended (state ${state}; logs in ${slurm.dir}/log)`,
      { pollMs: 1000 },
    );
    const log = await fs.readFile(path.join(work, `fpsweep-avtime-${id}.out`), 'utf8').catch(() => '');
    assert.equal(state, 'COMPLETED', log);
    assert.match(log, /scores: T2E-A [\d.]+ T2E-V [\d.]+ E2T-A [\d.]+ E2T-V [\d.]+ E2E-A [\d.]+ E2E-V [\d.]+ over \d+ queries/, log);
    const st = await captureOutput(() => cliMain(['status', '--package', out]));
    assert.equal(st.code, 0, st.out + st.err);
    for (const k of ['T2E-A', 'T2E-V', 'E2T-A', 'E2T-V', 'E2E-A', 'E2E-V']) assert.match(st.out, new RegExp(k), st.out);
  });
});
