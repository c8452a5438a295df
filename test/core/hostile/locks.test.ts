// Issue 33, locks (point 5), through the CLI on a caption root (VIDEOS_ROOT/.fpsweep-caption/worker.lock): a torn
// lock (attack 8) and a zombie holder are stale and taken over with a message; a live holder refuses the run and
// `--detach` alike with exit 2, its pid and no stack trace. An empty root captions nothing, so a run that gets
// past the lock exits 0 without a server.
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { acquireLock, pidAlive, processState } from '../../../src/core/runner/lock';
import { runCli } from '../../helpers/captureOutput';
import { waitFor } from '../../helpers/waitFor';

const emptyRoot = () => fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-lock-'));
const stateDir = (root: string) => path.join(root, '.fpsweep-caption');
const lockOf = (root: string) => path.join(stateDir(root), 'worker.lock');
/** `avtime caption ROOT` against no server: past the lock it finds no video and exits 0. */
const caption = (root: string, ...more: string[]) => runCli(['avtime', 'caption', root, '--base-url', 'http://127.0.0.1:9', '--no-preflight', ...more]);
const NO_STACK = /\n\s+at \S/;

describe('hostile roots: locks (issue 33, point 5)', function () {
  this.timeout(60_000);

  for (const [name, text] of [
    ['empty (a crash between creating and writing it)', ''],
    ['half a record', '{"pid": 12'],
    ['not a lock record', '{"hello": "world"}\n'],
  ] as const) {
    it(`a torn lock, ${name}, with no worker alive does not block the run (attack 8)`, async () => {
      const root = emptyRoot();
      fs.mkdirSync(stateDir(root));
      fs.writeFileSync(lockOf(root), text);
      const r = await caption(root);
      assert.equal(r.code, 0, r.err);
      assert.match(r.err + r.out, /taking over a torn lock .*worker\.lock/);
      assert.doesNotMatch(r.err, /another fpsweep worker/);
      assert.ok(!fs.existsSync(lockOf(root)), 'the run released the lock it took over');
    });
  }

  it('a lock held by a zombie (killed, not reaped) is stale: taken over with a message', async () => {
    // A parent that never reaps: it forks a child that exits at once and sleeps. SIGCHLD is set back to its default
    // first (an ignored SIGCHLD, inherited from whoever started the tests, would have the kernel reap it).
    const program = [
      'import os, signal, time',
      'signal.signal(signal.SIGCHLD, signal.SIG_DFL)',
      'pid = os.fork()',
      'if pid == 0: os._exit(0)',
      'print(pid, flush=True)',
      'time.sleep(120)',
    ].join('\n');
    const parent: ChildProcess = spawn('python3', ['-c', program], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      let said = '';
      parent.stdout!.on('data', (c: Buffer) => (said += c.toString()));
      const zombie = await waitFor(() => Number(/^(\d+)\n/.exec(said)?.[1]) || null, 10_000, 'the zombie pid');
      await waitFor(
        () => processState(zombie) === 'Z',
        10_000,
        () => `process ${zombie} to be a zombie (${processState(zombie)}; ${fs.existsSync('/proc/' + zombie)})`,
      );
      assert.equal(pidAlive(zombie), false, 'a zombie is not alive');
      const root = emptyRoot();
      fs.mkdirSync(stateDir(root));
      fs.writeFileSync(lockOf(root), JSON.stringify({ pid: zombie, hostname: os.hostname(), startedAt: '2026-01-01T00:00:00.000Z' }) + '\n');
      const r = await caption(root);
      assert.equal(r.code, 0, r.err);
      assert.match(r.err + r.out, new RegExp(`taking over a stale lock: pid ${zombie} `));
    } finally {
      parent.kill('SIGKILL'); // init reaps the zombie with its parent gone
    }
  });

  it('a live holder: the run and `--detach` both exit 2 naming its pid, with no stack trace', async () => {
    const root = emptyRoot();
    const held = await acquireLock({ root, stateDir: stateDir(root), lockFile: lockOf(root) });
    try {
      const fg = await caption(root);
      assert.equal(fg.code, 2, fg.err);
      assert.match(fg.err, new RegExp(`another fpsweep worker is running on this run root: pid ${process.pid} `));
      assert.doesNotMatch(fg.err, NO_STACK);
      // --detach starts a worker, which finds the lock held and exits 2: the starter says so, the same way.
      const bg = await caption(root, '--detach');
      assert.equal(bg.code, 2, bg.err);
      assert.match(bg.err, new RegExp(`another fpsweep worker is running on this run root: pid ${process.pid} `));
      assert.doesNotMatch(bg.err, NO_STACK);
    } finally {
      await held.release();
    }
  });

  it('a lock is never seen without its pid: the record is whole as soon as the file exists', async () => {
    const root = emptyRoot();
    const lock = { root, stateDir: stateDir(root), lockFile: lockOf(root) };
    fs.mkdirSync(lock.stateDir);
    // Watch the folder while the lock is taken: every time the lock exists, it parses and names this process.
    const seen: string[] = [];
    const watcher = fs.watch(lock.stateDir, () => {
      try {
        seen.push(fs.readFileSync(lock.lockFile, 'utf8'));
      } catch {
        /* not there (yet, or any more) */
      }
    });
    try {
      for (let i = 0; i < 20; i++) await (await acquireLock(lock)).release();
    } finally {
      watcher.close();
    }
    for (const text of seen) assert.equal(JSON.parse(text).pid, process.pid, `a lock read as ${JSON.stringify(text)}`);
    assert.deepEqual(fs.readdirSync(lock.stateDir), [], 'no temporary lock left');
  });
});
