// RunSession, the engine's side of any run: the lock (a held one refuses the run and touches nothing), stop
// requests (SIGTERM/SIGINT through a fake SignalHost — never a real signal to mocha —, the stop file on a tick, an
// in-process AbortSignal) and what each policy makes of them, the status tick, the cleanups in reverse with the lock
// released last, and an idempotent close. Then the generic status file and StatusReporter<S> it writes through.
import * as assert from 'node:assert/strict';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import type { SignalHost } from '../../../src/core/runner/drainControl';
import { LockHeldError, readLock } from '../../../src/core/runner/lock';
import { defaultRunRoot, stopFile, type RunRoot } from '../../../src/core/runner/runRoot';
import { RunSession, withRunSession, type RunSessionOptions, type StopPolicy } from '../../../src/core/runner/runSession';
import { readStatusFile, writeStatusAtomic } from '../../../src/core/runner/statusFile';
import { StatusReporter } from '../../../src/core/runner/statusReporter';

type Sig = 'SIGTERM' | 'SIGINT';

/** The part of `process` a session listens on, driven by the test. */
class FakeSignals implements SignalHost {
  private readonly listeners: { sig: Sig; fn: (s: NodeJS.Signals) => void }[] = [];
  exits: number[] = [];
  on(sig: Sig, fn: (s: NodeJS.Signals) => void): void {
    this.listeners.push({ sig, fn });
  }
  off(sig: Sig, fn: (s: NodeJS.Signals) => void): void {
    const i = this.listeners.findIndex((l) => l.sig === sig && l.fn === fn);
    if (i >= 0) this.listeners.splice(i, 1);
  }
  exit(code: number): never {
    this.exits.push(code);
    throw new Error(`exit ${code}`);
  }
  send(sig: Sig): void {
    for (const l of this.listeners.filter((x) => x.sig === sig)) l.fn(sig);
  }
  get attached(): number {
    return this.listeners.length;
  }
}

class LogLines {
  lines: string[] = [];
  info = (l: string) => this.lines.push(`info ${l}`);
  warn = (l: string) => this.lines.push(`warn ${l}`);
  error = (l: string) => this.lines.push(`error ${l}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `cond` every 10 ms; fails with `what` after `ms`. */
async function waitFor(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await sleep(10);
  }
}

const statusSchema = z.object({ n: z.number().int(), summary: z.string().nullable() });
type Status = z.infer<typeof statusSchema>;

describe('RunSession', () => {
  let dir: string;
  let root: RunRoot;
  let signals: FakeSignals;
  let log: LogLines;
  const opened: RunSession[] = [];

  const options = (over: Partial<RunSessionOptions> = {}): RunSessionOptions => ({
    root,
    runId: 'run-1',
    policy: 'drain',
    log,
    signals,
    tickMs: 20,
    ...over,
  });
  const open = async (over: Partial<RunSessionOptions> = {}) => {
    const s = await RunSession.open(options(over));
    opened.push(s);
    return s;
  };

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-session-'));
    root = defaultRunRoot(dir, 'session-status.json');
    signals = new FakeSignals();
    log = new LogLines();
  });

  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('close waits for the status writes under way: nothing of the run is written after it returns', async () => {
    const s = await open();
    let written = 0;
    const reporter = s.status(
      statusSchema,
      (summary) => ({ n: written, summary }),
      () => written++,
    );
    // Twenty writes queued (a tick's may be among them), none awaited, then the run returns and the session closes.
    for (let i = 0; i < 20; i++) void reporter.write(i === 19 ? 'ended' : null);
    await s.close();
    assert.equal(written, 20, 'every queued status write finished before close returned');
    assert.deepEqual(await readStatusFile(root.statusFile, statusSchema), { n: 19, summary: 'ended' });
  });

  it('a lock held by a live process: LockHeldError, and the stop file, the status and the signals are left alone', async () => {
    await fs.mkdir(root.stateDir, { recursive: true });
    const lock = JSON.stringify({ pid: process.pid, hostname: os.hostname(), startedAt: '2026-01-01T00:00:00.000Z', runId: 'other' }) + '\n';
    await fs.writeFile(root.lockFile, lock);
    await fs.writeFile(stopFile(root), 'stop asked for the other run\n');
    await assert.rejects(open(), (err: unknown) => err instanceof LockHeldError && err.holder.runId === 'other');
    assert.equal(await fs.readFile(root.lockFile, 'utf8'), lock, 'the lock is the holder’s still');
    assert.ok(existsSync(stopFile(root)), "the other run's stop request is kept");
    assert.deepEqual((await fs.readdir(root.stateDir)).sort(), ['stop', 'worker.lock']);
    assert.equal(signals.attached, 0, 'no signal listener attached');
  });

  it('takes the lock, clears an old stop file (it would stop the new run), and gives the lock back at close', async () => {
    await fs.mkdir(root.stateDir, { recursive: true });
    await fs.writeFile(stopFile(root), 'left by an earlier stop\n');
    const s = await open();
    assert.equal((await readLock(root))?.pid, process.pid);
    assert.equal((await readLock(root))?.runId, 'run-1');
    assert.equal(existsSync(stopFile(root)), false);
    assert.equal(signals.attached, 2, 'SIGTERM and SIGINT');
    await s.close();
    assert.equal(await readLock(root), null);
    assert.equal(signals.attached, 0);
  });

  it('a stop file is seen on a tick: a drain is asked for', async () => {
    const s = await open();
    s.onTick(() => undefined); // the tick starts with the first onTick or status()
    assert.equal(s.stopRequested, null);
    await fs.writeFile(stopFile(root), 'stop\n');
    await waitFor(() => s.stopRequested !== null, 5_000, 'the tick to see the stop file');
    assert.equal(s.stopRequested, 'stop file');
    assert.ok(
      log.lines.some((l) => /^info stop requested \(stop file\): draining/.test(l)),
      log.lines.join('\n'),
    );
  });

  it('SIGTERM, SIGINT and the stop signal ask for a drain; only the first counts; a second SIGINT exits 130', async () => {
    const stop = new AbortController();
    const s = await open({ stopSignal: stop.signal });
    const seen: string[] = [];
    s.drain.onDrain((why) => seen.push(why));
    signals.send('SIGTERM');
    stop.abort();
    assert.equal(s.stopRequested, 'SIGTERM');
    assert.deepEqual(seen, ['SIGTERM']);
    assert.throws(() => signals.send('SIGINT'), /exit 130/);
    assert.deepEqual(signals.exits, [130]);

    const inProcess = new AbortController();
    const byAbort = await RunSession.open(options({ root: defaultRunRoot(path.join(dir, 'b')), stopSignal: inProcess.signal }));
    opened.push(byAbort);
    inProcess.abort();
    assert.equal(byAbort.stopRequested, 'stop signal');
  });

  for (const [policy, cut] of [
    ['fail-closed', true],
    ['drain', false],
  ] as [StopPolicy, boolean][]) {
    it(`policy '${policy}': a stop ${cut ? 'cuts in-flight work at once' : 'lets in-flight work finish (cutSignal stays)'}`, async () => {
      const s = await open({ policy, graceMs: 30 });
      signals.send('SIGTERM');
      assert.equal(s.stopRequested, 'SIGTERM');
      assert.equal(s.cutSignal.aborted, cut);
      // Well past the grace of a stop by reason: a stop request alone never cuts under 'drain'.
      await sleep(150);
      assert.equal(s.cutSignal.aborted, cut);
      if (cut) assert.match(String((s.cutSignal.reason as Error).message), /stopped \(SIGTERM\)/);
      assert.ok(
        log.lines.some((l) => l.includes(cut ? 'failing closed' : 'draining')),
        log.lines.join('\n'),
      );
    });
  }

  it('cleanups run in reverse order, one that throws is logged and passed over, and the lock is released last', async () => {
    const s = await open();
    const order: string[] = [];
    let lockAtFirstCleanup: boolean | null = null;
    s.defer(async () => {
      lockAtFirstCleanup = (await readLock(root))?.pid === process.pid;
      order.push('first');
    });
    s.defer(() => {
      order.push('second');
      throw new Error('boom');
    });
    s.defer(async () => {
      await sleep(5);
      order.push('third');
    });
    await s.close();
    assert.deepEqual(order, ['third', 'second', 'first']);
    assert.equal(lockAtFirstCleanup, true, 'the lock is held until every cleanup has run');
    assert.equal(await readLock(root), null);
    assert.ok(log.lines.includes('warn cleanup: boom'), log.lines.join('\n'));
    assert.equal(signals.attached, 0);
  });

  it('close() is idempotent: cleanups run once, and the lock a later run took is not released by the old session', async () => {
    const s = await open();
    let runs = 0;
    s.defer(() => runs++);
    await s.close();
    const next = await open({ runId: 'run-2' });
    await s.close();
    assert.equal(runs, 1);
    assert.equal((await readLock(root))?.runId, 'run-2');
    await next.close();
  });

  it('writes the status on each tick and on an explicit write; one status file per session; no tick after close', async () => {
    const s = await open();
    let n = 0;
    const handed: Status[] = [];
    const reporter = s.status(
      statusSchema,
      (summary) => ({ n: ++n, summary }),
      (st) => handed.push(st),
    );
    assert.throws(() => s.status(statusSchema, () => ({ n: 0, summary: null })), /one status file/);
    await waitFor(async () => ((await readStatusFile(root.statusFile, statusSchema))?.n ?? 0) >= 2, 5_000, 'two ticks to write the status');
    await reporter.write('the end');
    // Closed before the file is read: a tick's write (every 20 ms) renamed in before its `last` was set would race.
    await s.close();
    assert.deepEqual(await readStatusFile(root.statusFile, statusSchema), reporter.last);
    assert.equal(reporter.last?.summary, 'the end');
    assert.deepEqual(
      handed.map((h) => h.n),
      handed.map((_, i) => i + 1),
      'each write handed on, in order',
    );
    const after = n;
    await sleep(100);
    assert.equal(n, after, 'no tick after close');
  });

  it('withRunSession closes the session whatever the run does, and passes its result or error on', async () => {
    const order: string[] = [];
    assert.equal(
      await withRunSession(options(), async (s) => {
        s.defer(() => order.push('cleanup 1'));
        return 7;
      }),
      7,
    );
    await assert.rejects(
      withRunSession(options({ runId: 'run-2' }), async (s) => {
        s.defer(() => order.push('cleanup 2'));
        throw new Error('the run failed');
      }),
      /the run failed/,
    );
    assert.deepEqual(order, ['cleanup 1', 'cleanup 2']);
    assert.equal(await readLock(root), null);
    assert.equal(signals.attached, 0);
  });
});

describe('the status file and StatusReporter<S>', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-statusfile-'));
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  // A schema that defaults and transforms on input, as StatusSchema<S> allows.
  const schema = z.object({ state: z.enum(['running', 'done']), rows: z.number().int().min(0), note: z.string().default('') });

  it('writes by replacing the file (a reader never sees half of one), checked by the schema, leaving no temp file', async () => {
    const file = path.join(dir, 'state', 'status.json');
    await writeStatusAtomic(dir, file, schema, { state: 'running', rows: 1, note: '' });
    const ino1 = (await fs.stat(file)).ino;
    await writeStatusAtomic(dir, file, schema, { state: 'done', rows: 2, note: 'x' });
    assert.notEqual((await fs.stat(file)).ino, ino1, 'a new file renamed over the old one, not the old one rewritten');
    await assert.rejects(writeStatusAtomic(dir, file, schema, { state: 'done', rows: -1, note: '' }));
    assert.deepEqual(await readStatusFile(file, schema), { state: 'done', rows: 2, note: 'x' }, 'a refused value leaves the file as it was');
    assert.deepEqual(await fs.readdir(path.dirname(file)), ['status.json']);
  });

  it('reads back through the schema: none, not JSON, or not the schema read as null', async () => {
    const file = path.join(dir, 'status.json');
    assert.equal(await readStatusFile(file, schema), null);
    await fs.writeFile(file, '{"state": "runn');
    assert.equal(await readStatusFile(file, schema), null);
    await fs.writeFile(file, JSON.stringify({ state: 'paused', rows: 1 }));
    assert.equal(await readStatusFile(file, schema), null);
    await fs.writeFile(file, JSON.stringify({ state: 'done', rows: 3 }));
    assert.deepEqual(await readStatusFile(file, schema), { state: 'done', rows: 3, note: '' });
  });

  it('StatusReporter: patch before the first write writes nothing; a refused write fails alone; the next ones go on', async () => {
    const file = path.join(dir, 'status.json');
    let rows = 0;
    const r = new StatusReporter(dir, file, schema, (summary) => ({ state: summary ? 'done' : 'running', rows, note: summary ?? '' }));
    await r.patch((last) => ({ ...last, rows: 99 }));
    assert.equal(existsSync(file), false);
    assert.equal(r.last === null, true);
    rows = 2;
    await r.write();
    rows = -5;
    await assert.rejects(r.write());
    assert.equal(r.last?.rows, 2);
    await r.patch((last) => ({ ...last, note: 'patched' }));
    assert.deepEqual(await readStatusFile(file, schema), { state: 'running', rows: 2, note: 'patched' });
    rows = 4;
    await r.write('finished');
    assert.deepEqual(await readStatusFile(file, schema), { state: 'done', rows: 4, note: 'finished' });
    assert.deepEqual(r.last, { state: 'done', rows: 4, note: 'finished' });
  });
});
