// The detached worker: kill -9 at random moments then resume (no row lost or doubled), and the
// run --detach / status / stop cycle. Servers are stand-ins given with --endpoints (a killed worker
// cannot clean up servers it launched; given ones outlive it, as on a real host).
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS, type SampleFixture } from '../sample/fixture';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { runSweep } from '../../../../../src/core/protocols/fp/sweep/sweep';
import { defaultSweepDeps } from '../../../../../src/core/protocols/fp/sweep/adapters';
import { runOptionsSchema } from '../../../../../src/core/protocols/fp/sweep/runOptions';
import { isWorkerAlive, waitForWorkerExit } from '../../../../../src/core/runner/control';
import { startDetachedWorker } from '../../../../../src/core/protocols/fp/sweep/startDetached';
import { readLiveStatus } from '../../../../../src/core/protocols/fp/sweep/liveStatus';
import { readStatus } from '../../../../../src/core/protocols/fp/status/status';
import { acquireLock } from '../../../../../src/core/runner/lock';
import { threadPoolSizeFor } from '../../../../../src/core/runner/threadPool';
import { main as cliMain } from '../../../../../src/cli/main';
import { startChatGate } from '../../../../helpers/chatGate';
import { waitFor } from '../../../../helpers/waitFor';
import { artifactKey, assertConsistent, readArtifacts, rowKeySet, startStandin, type Standin } from './helpers';

const BENCHES = ['MVBench', 'NExTQA', 'EgoSchema'];
const CONDS = ['v_blind', 'v_1', 'v_8_s224', 'v_32_s168'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A small deterministic generator, so a failing run can be replayed from the printed seed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

async function capture(fn: () => Promise<number>): Promise<{ code: number; out: string }> {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  (process.stdout as { write: unknown }).write = (s: string) => {
    chunks.push(String(s));
    return true;
  };
  try {
    return { code: await fn(), out: chunks.join('') };
  } finally {
    (process.stdout as { write: unknown }).write = write;
  }
}

describe('runner: the background worker', function () {
  this.timeout(180_000);
  let servers: Standin[] = [];
  let work: string;
  /** While this file exists the servers answer nothing (FPSWEEP_STANDIN_HOLD_FILE). */
  let hold: string;
  /** One line per chat request the servers finished (FPSWEEP_STANDIN_INSPECT). */
  let inspect: string;
  const answeredCount = async () => (await fs.readFile(inspect, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
  let origin: (s: SampleFixture) => Set<string>;
  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    await getSamplePackage();
    // Slow enough that a kill lands while requests and writes are under way.
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-worker-test-'));
    hold = path.join(work, 'hold');
    inspect = path.join(work, 'answered.jsonl');
    const env = { FPSWEEP_STANDIN_LATENCY: 'a=0.2,b=0.00001', FPSWEEP_STANDIN_HOLD_FILE: hold, FPSWEEP_STANDIN_INSPECT: inspect };
    servers = await Promise.all([0, 1].map(() => startStandin({ env })));
    origin = (s) => new Set(s.plan.existing.map((e) => artifactKey(e.benchmark, e.item_id, e.condition)));
  });
  afterEach(() => fs.rm(hold, { force: true })); // a failed test must not leave the servers holding
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await fs.rm(work, { recursive: true, force: true });
  });

  it('kill -9 at random moments, then resume: every row once, every raw record matched', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    const opts = { package: sample.root, benchmarks: BENCHES, conditions: CONDS, endpoints: servers.map((s) => s.url), decodeWorkers: 2 };
    const seed = Number(process.env.FPSWEEP_TEST_SEED) || Date.now() % 100000;
    const rand = rng(seed);
    const identityLines = async () => (await fs.readFile(`${layout.logsDir}/run_identity.jsonl`, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
    const moments: string[] = [];
    for (let k = 0; k < 3; k++) {
      // The kill lands while work is left, by construction rather than by timing: once a few more
      // requests are answered, the servers hold every later answer (HOLD_FILE), so the worker cannot
      // finish; the kill comes a random moment after that, while the last answers are being written.
      const w = await startDetachedWorker(opts); // it holds the lock when this returns
      // Its identity line written (its run begun) before the count: the held answers of the run killed before, let go
      // when the hold went, could reach the target at once and kill this one between its lock and its identity.
      await waitFor(async () => (await identityLines()) === k + 1, 60_000, `seed ${seed}: run ${k} wrote its identity line`);
      const answeredBefore = await answeredCount();
      const target = answeredBefore + 1 + Math.floor(rand() * 8);
      await waitFor(
        async () => {
          if ((await answeredCount()) >= target) return true;
          assert.ok(await isWorkerAlive(layout), `seed ${seed}: worker ${w.pid} ended before request ${target}`);
          return false;
        },
        60_000,
        `seed ${seed}: run ${k} answered no ${target}th request`,
        { pollMs: 10 },
      );
      await fs.writeFile(hold, '');
      const ms = Math.round(rand() * 300);
      await sleep(ms);
      process.kill(w.pid, 'SIGKILL');
      moments.push(`${ms} ms after request ${target}`);
      assert.equal(await waitForWorkerExit(layout, 30_000, 50), true);
      await fs.rm(hold);
    }
    // The status of a killed worker says so, with counts recomputed from the CSV.
    const live = await readLiveStatus(layout);
    if (live.status) {
      assert.equal(live.alive, false);
      assert.equal(live.status.state, 'failed', `seed ${seed}`);
    }
    const res = await runSweep(runOptionsSchema.parse(opts), defaultSweepDeps);
    assert.equal(res.exitCode, 0, `seed ${seed}, kills at ${moments.join(', ')} ms: ${res.summary}`);
    const a = await readArtifacts(layout);
    assertConsistent(a, origin(sample));
    const keys = rowKeySet(a);
    for (const i of sample.plan.items.filter((x) => BENCHES.includes(x.benchmark) && !x.missing)) {
      for (const c of CONDS) assert.ok(keys.has(artifactKey(i.benchmark, i.item_id, c)), `seed ${seed}: ${i.item_id} ${c} missing`);
    }
    const failures = (await fs.readFile(layout.failuresLog, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      failures.filter((f) => f.kind !== 'no_video').map((f) => `${f.item_id} ${f.condition} ${f.kind}`),
      [],
      `seed ${seed}`,
    );
    assert.equal(await identityLines(), 4);
  });

  it('run --detach returns at once; status follows the worker; stop drains it: exactly the in-flight requests written, lock released', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    // Each server's gate passes its first chat request (the pre-flight's) and holds every later one (the sweep's)
    // until released: the run stays open, with requests in flight, until the stop has been asked for.
    const gates = await Promise.all(servers.map((s) => startChatGate(s.url, 1)));
    const heldRequests = () => gates.reduce((n, g) => n + g.held, 0);
    try {
      const args = ['--package', sample.root, '--bench', BENCHES.join(','), '--conds', CONDS.join(','), '--endpoints', gates.map((g) => g.url).join(',')];
      const started = await capture(() => cliMain(['run', ...args, '--detach']));
      assert.equal(started.code, 0);
      const pid = Number(/pid (\d+)/.exec(started.out)![1]);
      // It returned while the run cannot have ended (the gates hold the sweep's requests): it did not wait for it.
      assert.equal(await isWorkerAlive(layout), true, 'returns while the worker runs');
      // Past its plan and its pre-flight, with sweep requests held in flight.
      let status: Awaited<ReturnType<typeof readStatus>> = null;
      await waitFor(
        async () =>
          (status = await readStatus(layout)) !== null && status.pid === pid && status.state === 'running' && status.cells.length > 0 && heldRequests() > 0,
        60_000,
        () => `the worker running with requests held (status ${status?.state ?? 'none'}, ${heldRequests()} held)`,
      );
      // A second run while it is alive is refused, naming its pid.
      const errs: string[] = [];
      const ew = process.stderr.write.bind(process.stderr);
      (process.stderr as { write: unknown }).write = (s: string) => {
        errs.push(String(s));
        return true;
      };
      const second = await cliMain(['run', ...args]).finally(() => {
        (process.stderr as { write: unknown }).write = ew;
      });
      assert.equal(second, 2);
      assert.match(errs.join(''), new RegExp(`pid ${pid}`));
      const shown = await capture(() => cliMain(['status', '--package', sample.root, '--json']));
      const parsed = JSON.parse(shown.out);
      assert.equal(parsed.alive, true);
      assert.ok(parsed.status.cells.some((c: { benchmark: string; condition: string }) => c.benchmark === 'MVBench' && c.condition === 'v_8_s224'));
      // stop --wait, and only once the worker has taken the stop (its log says so) are the held requests answered.
      const stopping = capture(() => cliMain(['stop', '--package', sample.root, '--wait']));
      await waitFor(
        async () => /\] info stop requested \(stop file\): draining/.test(await fs.readFile(layout.runnerLog, 'utf8').catch(() => '')),
        30_000,
        `worker ${pid} logged no stop request`,
      );
      gates.forEach((g) => g.release());
      const stopped = await stopping;
      assert.equal(stopped.code, 0);
      assert.match(stopped.out, new RegExp(`asked worker pid ${pid} to drain`));
      assert.equal(await isWorkerAlive(layout), false, 'stop --wait returned while the worker holds the lock');
      const final = await readStatus(layout);
      assert.equal(final?.state, 'stopped', final?.summary ?? '');
      // The requests in flight at the stop finished and were written, and nothing was sent after it.
      const added = /(\d+) rows added \(ok (\d+), NA (\d+), reuse (\d+)\), \d+ failure\(s\) logged, (\d+) left to do/.exec(final!.summary ?? '');
      assert.ok(added, final!.summary ?? '');
      assert.equal(Number(added[2]), heldRequests(), `${final!.summary}: ok rows vs the ${heldRequests()} requests held at the stop`);
      assert.ok(Number(added[5]) > 0, 'the stop left work to do');
      const failures = (await fs.readFile(layout.failuresLog, 'utf8')).split('\n').filter(Boolean);
      assert.deepEqual(
        failures.map((l) => JSON.parse(l)).filter((f) => f.kind !== 'no_video'),
        [],
        'no request failed',
      );
      const a = await readArtifacts(layout);
      assertConsistent(a, origin(sample));
      assert.equal(a.rows.length, sample.plan.existing.length + Number(added[1]));
      await fs.access(layout.lockFile).then(
        () => assert.fail('lock left behind'),
        () => undefined,
      );
    } finally {
      await Promise.all(gates.map((g) => g.close()));
    }
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

  it("the detached worker starts with libuv's pool sized for the cores, or as the user set it", async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    const opts = { package: sample.root, benchmarks: BENCHES, conditions: CONDS, endpoints: servers.map((s) => s.url) };
    const environOf = async (pid: number) => (await fs.readFile(`/proc/${pid}/environ`, 'utf8')).split('\0');
    const { UV_THREADPOOL_SIZE: _unset, ...env } = process.env;
    await fs.writeFile(hold, ''); // the worker cannot finish before its environment is read
    for (const [given, expected] of [
      [undefined, String(threadPoolSizeFor(os.availableParallelism()))],
      ['3', '3'],
    ] as const) {
      const w = await startDetachedWorker(opts, given === undefined ? env : { ...env, UV_THREADPOOL_SIZE: given });
      // It holds the lock when startDetachedWorker returns, and the servers hold its requests.
      const environ = await environOf(w.pid);
      process.kill(w.pid, 'SIGKILL');
      assert.equal(await waitForWorkerExit(layout, 30_000, 50), true);
      assert.deepEqual(
        environ.filter((e) => e.startsWith('UV_THREADPOOL_SIZE=')),
        [`UV_THREADPOOL_SIZE=${expected}`],
      );
    }
    await fs.rm(hold);
  });

  it('a detached worker refused the lock is an error with its reason, not "started"', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    const held = await acquireLock(layout, 'test-holder');
    try {
      await assert.rejects(
        startDetachedWorker({ package: sample.root, benchmarks: ['EgoSchema'], conditions: ['v_blind'], endpoints: servers.map((s) => s.url) }),
        // Refused before a worker is spawned (issue 33, attack 7): the holder's pid, the verb's exit 2.
        new RegExp(`another fpsweep worker is running on this run root: pid ${process.pid} `),
      );
    } finally {
      await held.release();
    }
  });
});
