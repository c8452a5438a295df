// Issue 20's proof that a run type is a folder and not a copy: a fake third run type ("tally", fixtures/), registered
// with PROTOCOLS.with(), runs a real job in a detached worker through the engine alone (RunSession, the launcher
// with stand-in vLLM servers, Scheduler + RequestChannel + VllmClient, AppendFile), is stopped through the CLI's
// `stop --wait` (the engine's requestStop on the run type's RunRoot: stop file + SIGTERM), shows in `status`, and
// is resumed by a second worker that asks only what has no row.
// No race decides the outcome: after K rows the job itself creates the stand-ins' hold file (fixtures/tallyJob.ts,
// pauseAfterRows) before it takes more work, so every later request is held and the run cannot end until the test
// has stopped it and released the hold. Every wait is bounded and says what it waited for.
import * as assert from 'node:assert/strict';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { statusVerb } from '../../../src/cli/verbs/status';
import { stopVerb } from '../../../src/cli/verbs/stop';
import { PROTOCOLS } from '../../../src/core/protocols/registry';
import { spawnDetached } from '../../../src/core/runner/control';
import { pidAlive, readLock } from '../../../src/core/runner/lock';
import { readStatusFile } from '../../../src/core/runner/statusFile';
import { captureOutput } from '../../helpers/captureOutput';
import { buildStandin, FAKE_VLLM, freePortBase, tmpDir } from '../serving/helpers';
import { readTallyRows, TallyLayout, tallyProtocol, tallyStatusSchema, type TallyJob, type TallyStatus } from './fixtures/tallyProtocol';

const WORKER = path.join(__dirname, 'fixtures', 'tallyWorker.ts');

const ITEMS = Array.from({ length: 10 }, (_, i) => `item-${String(i).padStart(2, '0')}`);
/** Rows the first run writes before it holds the stand-ins. */
const PAUSE_AFTER = 3;
const SERVERS = 2;
const CONCURRENCY = 1;

interface Worker {
  pid: number;
  exit: Promise<number | null>;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` every 100 ms until it gives a value; throws after `ms` with `what` and `context()`. */
async function waitFor<T>(probe: () => Promise<T | null>, ms: number, what: string, context: () => Promise<string>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}\n${await context()}`);
    await sleep(100);
  }
}

/** `p`, or an error after `ms` naming what did not end. */
async function within<T>(p: Promise<T>, ms: number, what: string, context: () => Promise<string>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => void context().then((c) => reject(new Error(`${what} did not end within ${ms} ms\n${c}`))), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('a third run type, registered in a test, runs on the engine alone (issue 20)', function () {
  this.timeout(300_000);
  const started: number[] = [];
  let dir: string;
  let layout: TallyLayout;
  const registry = PROTOCOLS.with(tallyProtocol);

  const runnerLog = () => fs.readFile(layout.runRoot.runnerLog, 'utf8').catch(() => '(no runner log)');
  const context = async () => `runner.log (last 30 lines):\n${(await runnerLog()).split('\n').slice(-30).join('\n')}`;
  const readStatus = () => readStatusFile(layout.runRoot.statusFile, tallyStatusSchema);

  /** Starts the test's own worker entry detached (the engine's spawnDetached), returning once it holds the lock. */
  async function startWorker(job: TallyJob): Promise<Worker> {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FPSWEEP_STANDIN_')));
    const w = await spawnDetached({ protocol: 'tally', job, root: layout.runRoot, lockName: 'tally lock', cwd: dir, env, entry: WORKER });
    started.push(w.pid);
    return { pid: w.pid, exit: w.exited };
  }

  before(async function () {
    this.timeout(120_000);
    await buildStandin();
    dir = tmpDir('tally');
    layout = new TallyLayout(dir);
    await fs.writeFile(layout.itemsFile, JSON.stringify({ items: ITEMS }) + '\n');
  });

  after(async () => {
    // Workers this test started and a failed assertion left running (their stand-ins follow their owner).
    for (const pid of started) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('runs, stops through `fpsweep stop --wait` with its in-flight rows written, shows in `status`, and resumes to one row per item', async () => {
    const t0 = Date.now();
    const holdFile = path.join(dir, 'hold');
    const inspectFile = path.join(dir, 'requests.jsonl');
    const job = (pause: boolean): TallyJob => ({
      root: dir,
      servers: SERVERS,
      basePort: 0, // set below, per run
      vllmBin: FAKE_VLLM,
      concurrency: CONCURRENCY,
      tickMs: 200,
      // Each request takes ≥ 50 ms (so the servers share the work); one line per request reaches the inspect file.
      serverEnv: { FPSWEEP_STANDIN_LATENCY: 'a=0.05,b=0,shared=0', FPSWEEP_STANDIN_HOLD_FILE: holdFile, FPSWEEP_STANDIN_INSPECT: inspectFile },
      ...(pause ? { pauseAfterRows: { rows: PAUSE_AFTER, holdFile } } : {}),
    });

    // 1. The first run: K rows, then every request held.
    const first = await startWorker({ ...job(true), basePort: await freePortBase(SERVERS) });
    await waitFor(
      async () => (existsSync(holdFile) && (await readTallyRows(layout)).length >= PAUSE_AFTER ? true : null),
      90_000,
      `${PAUSE_AFTER} rows and the job's hold on the stand-ins`,
      context,
    );
    const running = await captureOutput(() => statusVerb(['--package', dir, '--json'], registry));
    assert.equal(running.code, 0, running.err);
    const live = JSON.parse(running.out);
    assert.deepEqual([live.protocol, live.live, live.state, live.root], ['tally', true, 'running', dir]);

    // 2. The stop: `stop --wait` asks (stop file + SIGTERM); once the worker says it drains, the hold is released so
    //    the requests in flight can finish. The first status that names the stop is a snapshot taken after the drain:
    //    nothing new is sent from then on, so its rows + in flight are the rows the run ends with.
    const stopping = captureOutput(() => stopVerb(['--package', dir, '--wait'], registry));
    const drained = await waitFor(
      async () => {
        const s = await readStatus();
        return s?.stopRequested ? s : null;
      },
      30_000,
      'the worker to report the stop request in its status',
      context,
    );
    assert.ok(drained.inFlight >= 1, `requests held in flight at the stop: ${JSON.stringify(drained)}`);
    await fs.rm(holdFile);
    const stopped = await within(stopping, 60_000, '`stop --wait`', context);
    assert.equal(stopped.code, 0, stopped.err);
    assert.equal(await within(first.exit, 10_000, 'the first worker', context), 0);
    const afterStop = await readTallyRows(layout);
    const s1 = (await readStatus()) as TallyStatus;
    assert.equal(s1.state, 'stopped', JSON.stringify(s1));
    assert.match(s1.stopRequested ?? '', /SIGTERM|stop file/);
    assert.equal(afterStop.length, drained.answered + drained.inFlight, 'the rows at the stop plus the ones in flight, none sent after');
    assert.ok(afterStop.length >= PAUSE_AFTER && afterStop.length < ITEMS.length, `${afterStop.length} rows after the stop`);
    assert.equal(s1.answered, afterStop.length);
    assert.equal(new Set(afterStop.map((r) => r.item)).size, afterStop.length, 'one row per item');
    assert.match(stopped.out, new RegExp(`^asked Tally worker pid ${first.pid} to stop\n`));
    assert.ok(stopped.out.includes(`stopped: ${afterStop.length} rows added, 0 failed, ${ITEMS.length - afterStop.length} left to ask`), stopped.out);
    assert.equal(await readLock(layout.runRoot), null, 'the lock is released');

    // 3. `status` on the same registry shows the run type's snapshot.
    const shown = await captureOutput(() => statusVerb(['--package', dir, '--json'], registry));
    const snap = JSON.parse(shown.out);
    assert.deepEqual(
      [snap.protocol, snap.live, snap.state, snap.runId, snap.groups[0].done, snap.groups[0].todo],
      ['tally', false, 'stopped', s1.runId, afterStop.length, ITEMS.length - afterStop.length],
    );
    const text = await captureOutput(() => statusVerb(['--package', dir], registry));
    assert.match(
      text.out,
      new RegExp(`^Tally run ${s1.runId}: stopped · ${escapeRegExp(dir)}\n  items stopped: ${afterStop.length} done, ${ITEMS.length - afterStop.length} to do`),
    );

    // 4. The resume: a second worker asks only what has no row, and ends done.
    const second = await startWorker({ ...job(false), basePort: await freePortBase(SERVERS) });
    assert.equal(await within(second.exit, 120_000, 'the resumed worker', context), 0);
    const rows = await readTallyRows(layout);
    const s2 = (await readStatus()) as TallyStatus;
    assert.equal(s2.state, 'done', JSON.stringify(s2));
    assert.notEqual(s2.runId, s1.runId);
    assert.deepEqual(rows.slice(0, afterStop.length), afterStop, "the first run's rows are kept as they were");
    assert.deepEqual(rows.map((r) => r.item).sort(), ITEMS, 'every item has exactly one row');
    assert.ok(rows.slice(afterStop.length).every((r) => r.runId === s2.runId));
    const requests = (await fs.readFile(inspectFile, 'utf8')).split('\n').filter(Boolean);
    assert.equal(requests.length, ITEMS.length, 'each item was asked once over both runs (the resume skipped the answered ones)');
    for (const runId of [s1.runId, s2.runId]) {
      assert.equal(new Set(rows.filter((r) => r.runId === runId).map((r) => r.server)).size, SERVERS, `every server of run ${runId} answered`);
    }
    const done = JSON.parse((await captureOutput(() => statusVerb(['--package', dir, '--json'], registry))).out);
    assert.deepEqual([done.state, done.groups[0].done, done.groups[0].todo], ['done', ITEMS.length, 0]);
    process.stderr.write(
      `      (third run type: stopped at ${drained.answered} rows + ${drained.inFlight} in flight, ${afterStop.length} rows kept; ` +
        `stop + resume in ${((Date.now() - t0) / 1000).toFixed(1)} s)\n`,
    );
  });
});
