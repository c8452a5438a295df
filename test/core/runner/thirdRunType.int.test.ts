// The proof that a run type is a folder and its registrations, through the doors a contributor and a user take:
// scripts/proveRunType.ts adds the fake run type "tally" (test/fixtures/runTypes/tally/: its engine half and its
// UI half) to a copy of this tree — its folders copied in, one entry in each registry — and the copy must
// type-check, lint and build (the extension's bundle included) with nothing else touched. Then the copy's own
// product runs it: `fpsweep tally run --detach` (the CLI's run-type verbs) starts the product's worker
// (dist/worker.js, its job runner from jobRunners.ts) on stand-in vLLM servers launched by the engine;
// `fpsweep status` shows it, `fpsweep stop --wait` stops it with its in-flight rows written, and a second
// run resumes it to exactly one row per item.
// No race decides the outcome: after K rows the job itself creates the stand-ins' hold file before it takes more
// work, so every later request is held and the run cannot end until the test has stopped it and released the hold.
// Every wait is bounded and says what it waited for.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { addRunTypeToCopy, checkCopy, type ProvedCopy } from '../../../scripts/proveRunType';
import { pidAlive } from '../../../src/core/runner/lock';
import { waitFor } from '../../helpers/waitFor';
import { buildStandin, FAKE_VLLM, freePortBase, REPO, tmpDir } from '../serving/helpers';

const RUN_TYPE = path.join(REPO, 'test', 'fixtures', 'runTypes', 'tally');
/**
 * What adding a run type may touch outside its own folders: one entry in each registry (its engine half, its job
 * runner, its verbs, its UI half), nothing else — not even package.json: it starts through the extension's one
 * "fpsweep: Start a run…", and Stop and Report are the extension's too.
 */
const REGISTRIES = ['src/cli/runTypeVerbs.ts', 'src/core/protocols/registry.ts', 'src/extension/protocols/registry.ts', 'src/worker/jobRunners.ts'];

const ITEMS = Array.from({ length: 10 }, (_, i) => `item-${String(i).padStart(2, '0')}`);
/** Rows the first run writes before it holds the stand-ins. */
const PAUSE_AFTER = 3;
const SERVERS = 2;

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

interface Row {
  item: string;
  answer: string;
  server: string;
  runId: string;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('a third run type added as a folder and its registry entries runs through the product (issue 24)', function () {
  this.timeout(300_000);
  let proved: ProvedCopy;
  let dir: string;
  const workers: number[] = [];

  const statusFile = () => path.join(dir, '.fpsweep', 'tally-status.json');
  const lockFile = () => path.join(dir, '.fpsweep', 'worker.lock');
  const readStatus = async () => JSON.parse(await fs.readFile(statusFile(), 'utf8').catch(() => 'null'));
  const readRows = async (): Promise<Row[]> =>
    (await fs.readFile(path.join(dir, 'answers.jsonl'), 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Row);
  const runnerLog = async () =>
    (await fs.readFile(path.join(dir, 'logs', 'runner.log'), 'utf8').catch(() => '(no runner log)')).split('\n').slice(-30).join('\n');

  /** `p`, or its error with the runner log's last lines. */
  const withLog = <T>(p: Promise<T>): Promise<T> =>
    p.catch(async (err: Error) => Promise.reject(new Error(`${err.message}\nrunner.log:\n${await runnerLog()}`)));

  /** The copy's own CLI (dist/cli.js), as a user runs it; env: the stand-ins' knobs and VLLM_BIN. */
  function cli(args: string[], knobs: Record<string, string> = {}): Promise<Ran> {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FPSWEEP_STANDIN_')));
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [path.join(proved.dir, 'dist', 'cli.js'), ...args],
        { env: { ...env, VLLM_BIN: FAKE_VLLM, ...knobs }, cwd: dir },
        (err, out, errOut) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out, err: errOut }),
      );
    });
  }

  /** `fpsweep tally run --detach`: returns once the product's worker holds the lock; its pid from the CLI's line. */
  async function startDetached(extra: string[], knobs: Record<string, string>): Promise<number> {
    const r = await cli(
      ['tally', 'run', '--package', dir, '--servers', String(SERVERS), '--base-port', String(await freePortBase(SERVERS)), '--detach', ...extra],
      knobs,
    );
    assert.equal(r.code, 0, `tally run --detach: ${r.err}${r.out}`);
    const pid = Number(/tally worker pid (\d+) started/.exec(r.out)?.[1]);
    assert.ok(pid > 0, r.out);
    workers.push(pid);
    return pid;
  }

  before(async function () {
    this.timeout(240_000);
    await buildStandin();
    proved = addRunTypeToCopy(RUN_TYPE);
    checkCopy(proved);
    dir = tmpDir('tally');
    await fs.writeFile(path.join(dir, 'tally.json'), JSON.stringify({ items: ITEMS }) + '\n');
  });

  after(async () => {
    // Workers a failed assertion left running (their stand-ins follow their owner).
    for (const pid of workers) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
    if (dir) await fs.rm(dir, { recursive: true, force: true });
    if (proved) await fs.rm(proved.dir, { recursive: true, force: true });
  });

  it('adding it touches its folder and one entry in each registry, nothing else; the copy compiles', () => {
    assert.deepEqual(proved.outside.map((t) => t.file).sort(), REGISTRIES, JSON.stringify(proved.outside));
    for (const t of proved.outside) assert.ok(t.added <= 2 && t.removed <= 1, `${t.file}: +${t.added} -${t.removed}: an import and an entry at most`);
    const own = ['src/core/protocols/tally/', 'src/extension/protocols/tally/'];
    assert.ok(proved.inside.length >= 4 && proved.inside.every((f) => own.some((o) => f.startsWith(o))), proved.inside.join(', '));
  });

  it('runs detached in the product worker, stops through `stop --wait` with its in-flight rows, shows in `status`, resumes to one row per item', async () => {
    const t0 = Date.now();
    const holdFile = path.join(dir, 'hold');
    const inspectFile = path.join(dir, 'requests.jsonl');
    // Each request takes ≥ 50 ms (so the servers share the work); one line per request reaches the inspect file.
    const knobs = { FPSWEEP_STANDIN_LATENCY: 'a=0.05,b=0,shared=0', FPSWEEP_STANDIN_HOLD_FILE: holdFile, FPSWEEP_STANDIN_INSPECT: inspectFile };

    // 1. The first run: K rows, then every request held.
    const first = await startDetached(['--pause-after-rows', String(PAUSE_AFTER), '--hold-file', holdFile], knobs);
    await withLog(waitFor(async () => existsSync(holdFile) && (await readRows()).length >= PAUSE_AFTER, 90_000, `${PAUSE_AFTER} rows and the hold`));
    const running = await cli(['status', '--package', dir, '--json']);
    assert.equal(running.code, 0, running.err);
    const live = JSON.parse(running.out);
    assert.deepEqual([live.protocol, live.live, live.state, live.root], ['tally', true, 'running', dir]);

    // 2. The stop: `stop --wait` asks (stop file + SIGTERM); once the worker says it drains, the hold is released so
    //    the requests in flight can finish. The first status that names the stop is a snapshot taken after the drain:
    //    nothing new is sent from then on, so its rows + in flight are the rows the run ends with.
    const stopping = cli(['stop', '--package', dir, '--wait', '--timeout', '120']);
    const drained = await waitFor(
      async () => {
        const s = await readStatus();
        return s?.stopRequested ? s : null;
      },
      30_000,
      'the worker to report the stop request in its status',
    );
    assert.ok(drained.inFlight >= 1, `requests held in flight at the stop: ${JSON.stringify(drained)}`);
    await fs.rm(holdFile);
    const stopped = await stopping;
    assert.equal(stopped.code, 0, `${stopped.err}\n${await runnerLog()}`);
    // Its lock given back is its exit as the engine sees it (the worker is no child of ours: an orphan is reaped by
    // whoever the host's init is, so its pid may linger as a zombie).
    assert.ok(!existsSync(lockFile()), 'the first worker has given its lock back');
    const afterStop = await readRows();
    const s1 = await readStatus();
    assert.equal(s1.state, 'stopped', JSON.stringify(s1));
    assert.match(s1.stopRequested ?? '', /SIGTERM|stop file/);
    assert.equal(afterStop.length, drained.answered + drained.inFlight, 'the rows at the stop plus the ones in flight, none sent after');
    assert.ok(afterStop.length >= PAUSE_AFTER && afterStop.length < ITEMS.length, `${afterStop.length} rows after the stop`);
    assert.equal(new Set(afterStop.map((r) => r.item)).size, afterStop.length, 'one row per item');
    assert.match(stopped.out, new RegExp(`^asked Tally worker pid ${first} to stop\n`));
    assert.ok(stopped.out.includes(`stopped: ${afterStop.length} rows added, 0 failed, ${ITEMS.length - afterStop.length} left to ask`), stopped.out);

    // 3. `status` shows the run type's snapshot, in JSON and in words.
    const snap = JSON.parse((await cli(['status', '--package', dir, '--json'])).out);
    assert.deepEqual(
      [snap.protocol, snap.live, snap.state, snap.runId, snap.groups[0].done, snap.groups[0].todo],
      ['tally', false, 'stopped', s1.runId, afterStop.length, ITEMS.length - afterStop.length],
    );
    const text = await cli(['status', '--package', dir]);
    assert.match(
      text.out,
      new RegExp(`^Tally run ${s1.runId}: stopped · ${escapeRegExp(dir)}\n  items stopped: ${afterStop.length} done, ${ITEMS.length - afterStop.length} to do`),
    );

    // 4. The resume: a second worker asks only what has no row, and ends done (its lock given back).
    const second = await startDetached([], knobs);
    assert.ok(second > 0);
    await withLog(
      waitFor(async () => !existsSync(lockFile()) && ['done', 'failed'].includes((await readStatus())?.state), 120_000, 'the resumed worker to end'),
    );
    const rows = await readRows();
    const s2 = await readStatus();
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
    const done = JSON.parse((await cli(['status', '--package', dir, '--json'])).out);
    assert.deepEqual([done.state, done.groups[0].done, done.groups[0].todo], ['done', ITEMS.length, 0]);
    process.stderr.write(
      `      (third run type: ${proved.outside.map((t) => `${t.file} +${t.added} -${t.removed}`).join(', ')}; ` +
        `stopped at ${drained.answered} rows + ${drained.inFlight} in flight, ${afterStop.length} kept; ` +
        `stop + resume in ${((Date.now() - t0) / 1000).toFixed(1)} s)\n`,
    );
  });
});
