// The detached worker: kill -9 at random moments then resume (no row lost or doubled), and the
// run --detach / status / stop cycle. Servers are stand-ins given with --endpoints (a killed worker
// cannot clean up servers it launched; given ones outlive it, as on a real host).
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS, type SampleFixture } from '../sample/fixture';
import { PackageLayout } from '../../../src/core/package/layout';
import { runSweep } from '../../../src/core/runner/sweep';
import { defaultSweepDeps } from '../../../src/core/runner/adapters';
import { runOptionsSchema } from '../../../src/core/runner/runOptions';
import { isWorkerAlive, startDetachedWorker, waitForWorkerExit } from '../../../src/core/runner/control';
import { readLiveStatus, readStatus } from '../../../src/core/runner/status';
import { acquireLock } from '../../../src/core/runner/lock';
import { threadPoolSizeFor } from '../../../src/core/frames/threadPool';
import { main as cliMain } from '../../../src/cli/main';
import { artifactKey, assertConsistent, readArtifacts, rowKeySet, startStandin, type Standin } from './helpers';

const BENCHES = ['MVBench', 'NExTQA', 'EgoSchema'];
const CONDS = ['v_blind', 'v_1', 'v_8_s224', 'v_32_s168'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A small deterministic generator, so a failing run can be replayed from the printed seed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

async function capture(fn: () => Promise<number>): Promise<{ code: number; out: string }> {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  (process.stdout as { write: unknown }).write = (s: string) => { chunks.push(String(s)); return true; };
  try {
    return { code: await fn(), out: chunks.join('') };
  } finally {
    (process.stdout as { write: unknown }).write = write;
  }
}

describe('runner: the background worker', function () {
  this.timeout(180_000);
  let servers: Standin[] = [];
  let origin: (s: SampleFixture) => Set<string>;
  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    await getSamplePackage();
    // Slow enough that a kill lands while requests and writes are under way.
    servers = await Promise.all([0, 1].map(() => startStandin({ env: { FPSWEEP_STANDIN_LATENCY: 'a=0.2,b=0.00001' } })));
    origin = (s) => new Set(s.plan.existing.map((e) => artifactKey(e.benchmark, e.item_id, e.condition)));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  it('kill -9 at random moments, then resume: every row once, every raw record matched', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    const opts = { package: sample.root, benchmarks: BENCHES, conditions: CONDS, endpoints: servers.map((s) => s.url), decodeWorkers: 2 };
    const seed = Number(process.env.FPSWEEP_TEST_SEED) || Date.now() % 100000;
    const rand = rng(seed);
    const moments: string[] = [];
    let kills = 0;
    for (let k = 0; k < 3; k++) {
      const w = await startDetachedWorker(opts);
      // Wait until the worker is past its start (it holds the lock), then a random moment more.
      const t0 = Date.now();
      while (!(await isWorkerAlive(layout)) && Date.now() - t0 < 30_000) await sleep(100);
      const ms = Math.round(200 + rand() * 3000);
      // The kill comes at that moment, or sooner when the run is near its end (few units left in the
      // status file, written about once a second): a kill must land while work is under way.
      const deadline = Date.now() + ms;
      let left: number | null = null;
      while (Date.now() < deadline) {
        await sleep(25);
        const st = await readStatus(layout).catch(() => null);
        if (st && st.pid === w.pid) left = st.totals.todo;
        if (left !== null && left <= 20) break;
      }
      try {
        process.kill(w.pid, 'SIGKILL');
        kills++;
        moments.push(`${Date.now() - deadline + ms} ms (${left ?? '?'} left)`);
      } catch (err) {
        // It finished on its own first: a clean end, as the status must say.
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
        const st = await readStatus(layout);
        assert.equal(st?.state, 'done', `seed ${seed}: worker ${w.pid} exited before the kill but not cleanly`);
        moments.push('none (it had finished)');
      }
      while (await isWorkerAlive(layout)) await sleep(50);
      const a = await readArtifacts(layout).catch(() => null); // a torn tail may be there until the next start
      void a;
    }
    // The status of a killed worker says so, with counts recomputed from the CSV.
    const live = await readLiveStatus(layout);
    if (live.status) {
      assert.equal(live.alive, false);
      assert.ok(['failed', 'done'].includes(live.status.state), `seed ${seed}`);
    }
    assert.ok(kills >= 1, `seed ${seed}: no kill landed (${moments.join(', ')})`);
    const res = await runSweep(runOptionsSchema.parse(opts), defaultSweepDeps);
    assert.equal(res.exitCode, 0, `seed ${seed}, kills at ${moments.join(', ')} ms: ${res.summary}`);
    const a = await readArtifacts(layout);
    assertConsistent(a, origin(sample));
    const keys = rowKeySet(a);
    for (const i of sample.plan.items.filter((x) => BENCHES.includes(x.benchmark) && !x.missing)) {
      for (const c of CONDS) assert.ok(keys.has(artifactKey(i.benchmark, i.item_id, c)), `seed ${seed}: ${i.item_id} ${c} missing`);
    }
    const failures = (await fs.readFile(layout.failuresLog, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(failures.filter((f) => f.kind !== 'no_video').map((f) => `${f.item_id} ${f.condition} ${f.kind}`), [], `seed ${seed}`);
    const runs = (await fs.readFile(`${layout.logsDir}/run_identity.jsonl`, 'utf8')).trim().split('\n');
    assert.equal(runs.length, 4);
  });

  it('run --detach returns at once; status follows the worker; stop drains it and releases the lock', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    const args = ['--package', sample.root, '--bench', BENCHES.join(','), '--conds', CONDS.join(','), '--endpoints', servers.map((s) => s.url).join(',')];
    const t0 = Date.now();
    const started = await capture(() => cliMain(['run', ...args, '--detach']));
    assert.equal(started.code, 0);
    assert.ok(Date.now() - t0 < 5000, 'returns at once');
    const pid = Number(/pid (\d+)/.exec(started.out)![1]);
    // A second run while it is alive is refused, naming its pid.
    let status = null;
    for (let i = 0; i < 150 && !(status && status.totals.addedThisRun > 0); i++) {
      await sleep(200);
      status = await readStatus(layout);
    }
    assert.ok(status && status.pid === pid && status.state === 'running', JSON.stringify(status?.state));
    const errs: string[] = [];
    const ew = process.stderr.write.bind(process.stderr);
    (process.stderr as { write: unknown }).write = (s: string) => { errs.push(String(s)); return true; };
    const second = await cliMain(['run', ...args]).finally(() => { (process.stderr as { write: unknown }).write = ew; });
    assert.equal(second, 2);
    assert.match(errs.join(''), new RegExp(`pid ${pid}`));
    const shown = await capture(() => cliMain(['status', '--package', sample.root, '--json']));
    const parsed = JSON.parse(shown.out);
    assert.equal(parsed.alive, true);
    assert.ok(parsed.status.cells.some((c: { benchmark: string; condition: string }) => c.benchmark === 'MVBench' && c.condition === 'v_8_s224'));
    const stopped = await capture(() => cliMain(['stop', '--package', sample.root, '--wait']));
    assert.equal(stopped.code, 0);
    assert.match(stopped.out, /asked worker pid \d+ to drain/);
    assert.equal(await waitForWorkerExit(layout, 1000), true);
    const final = await readStatus(layout);
    assert.ok(final && ['stopped', 'done'].includes(final.state), final?.state);
    assert.match(final!.summary ?? '', /rows added/);
    assertConsistent(await readArtifacts(layout), origin(sample));
    await fs.access(layout.lockFile).then(() => assert.fail('lock left behind'), () => undefined);
  });
  it('run --detach returns once the new worker holds the lock: a follower right after sees it, not the last run', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    const opts = { package: sample.root, benchmarks: ['EgoSchema'], conditions: ['v_blind'], endpoints: servers.map((s) => s.url) };
    // A finished run leaves its status (another pid, state done) behind.
    const first = await startDetachedWorker(opts);
    assert.equal(await waitForWorkerExit(layout, 60_000, 50), true);
    assert.equal((await readStatus(layout))?.pid, first.pid);
    const second = await startDetachedWorker({ ...opts, conditions: ['v_1'] });
    // What `status --wait` (the runbook's full-run cell) looks at first.
    const live = await readLiveStatus(layout);
    assert.equal(live.alive || (await readStatus(layout))?.pid === second.pid, true, 'the new worker is seen at once');
    if (live.alive) {
      assert.equal(live.pid, second.pid);
      assert.ok(live.status === null || live.status.pid === second.pid, `status of pid ${live.status?.pid} shown for worker ${second.pid}`);
    }
    assert.equal(await waitForWorkerExit(layout, 60_000, 50), true);
  });

  it('the detached worker starts with libuv\'s pool sized for the cores, or as the user set it', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    const opts = { package: sample.root, benchmarks: BENCHES, conditions: CONDS, endpoints: servers.map((s) => s.url) };
    const environOf = async (pid: number) => (await fs.readFile(`/proc/${pid}/environ`, 'utf8')).split('\0');
    const { UV_THREADPOOL_SIZE: _unset, ...env } = process.env;
    for (const [given, expected] of [[undefined, String(threadPoolSizeFor(os.availableParallelism()))], ['3', '3']] as const) {
      const w = await startDetachedWorker(opts, given === undefined ? env : { ...env, UV_THREADPOOL_SIZE: given });
      // It holds the lock when startDetachedWorker returns, with minutes of slow requests ahead.
      const environ = await environOf(w.pid);
      process.kill(w.pid, 'SIGKILL');
      assert.equal(await waitForWorkerExit(layout, 30_000, 50), true);
      assert.deepEqual(environ.filter((e) => e.startsWith('UV_THREADPOOL_SIZE=')), [`UV_THREADPOOL_SIZE=${expected}`]);
    }
  });

  it('a detached worker refused the lock is an error with its reason, not "started"', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    const held = await acquireLock(layout, 'test-holder');
    try {
      await assert.rejects(
        startDetachedWorker({ package: sample.root, benchmarks: ['EgoSchema'], conditions: ['v_blind'], endpoints: servers.map((s) => s.url) }),
        new RegExp(`exited with code 2 before taking the package lock.*pid ${process.pid}`));
    } finally {
      await held.release();
    }
  });
});
