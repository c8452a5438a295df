// Issue 43: the shipped Slurm job script on a real Slurm (a throwaway munged + slurmctld + slurmd on this host,
// test/helpers/slurmCluster.ts), against the stand-in vLLM: the FP array of 4; task 0 cancelled (scancel) while its
// ffmpeg decodes, task 1's run killed with kill -9; merge refuses the gap naming both shards; both requeued; merged
// complete, equal to the unsharded run, with its failure lines and no more. Waits for states (squeue/scontrol), each
// bounded. Where Slurm is not installed it says SKIP, loudly, with how to install it.
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS } from '../protocols/fp/sample/fixture';
import { PackageLayout } from '../../../src/core/protocols/fp/package/layout';
import { readLock } from '../../../src/core/runner/lock';
import { main as cliMain } from '../../../src/cli/main';
import { captureOutput } from '../../helpers/captureOutput';
import { waitFor } from '../../helpers/waitFor';
import { slurmMissing, startSlurm, type SlurmCluster } from '../../helpers/slurmCluster';
import { REPO, readArtifacts, rowKeySet, startStandin, type Standin } from '../protocols/fp/sweep/helpers';

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
  after(async () => {
    await server?.stop();
    await slurm?.stop();
    if (slurm) await fs.rm(slurm.dir, { recursive: true, force: true });
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
    const tsx = pathToFileURL(path.join(REPO, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
    const env = {
      FPSWEEP_PACKAGE: pkg,
      FPSWEEP: `${process.execPath} --import ${tsx} ${path.join(REPO, 'src', 'cli', 'main.ts')}`,
      FFMPEG_BIN: slow,
    };
    const script = path.join(REPO, 'examples', 'slurm', 'fp-sweep.sbatch');
    const id = (await slurm.cli('sbatch', ['--parsable', `--chdir=${work}`, script, ...args], env)).trim().split(';')[0];
    const copy = (t: number) => path.join(`${pkg}.shards`, `task-${t}`);

    // Task 0: scancel while its ffmpeg decodes. Task 1: kill -9 of its run (the task's own process, exec'd).
    await waitFor(
      async () => (await fs.readdir(pids)).length > 0 && (await readLock(new PackageLayout(copy(0))).catch(() => null)) !== null,
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

    // Requeued (at once: Slurm holds a requeued job ~2 minutes otherwise), both resume their own copies.
    await slurm.cli('scontrol', ['requeue', `${id}_0,${id}_1`]);
    for (const t of [0, 1]) await slurm.cli('scontrol', ['update', `jobid=${id}_${t}`, 'StartTime=now']);
    await waitFor(
      async () => {
        const s = await slurm.states(id);
        return [0, 1].every((t) => !DONE.has(s.get(t) ?? 'COMPLETED'));
      },
      60_000,
      'tasks 0 and 1 requeued',
    );
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
});
