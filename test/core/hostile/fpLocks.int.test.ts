// Issue 33, locks on a Frames × Pixels package, through the CLI: `run --detach` twice at once (attack 7) refuses
// the second with exit 2 and the first's pid, no stack trace; a torn `worker.lock` (attack 8) does not block a run.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { promises as fs, watch } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS } from '../protocols/fp/sample/fixture';
import { REPO, startStandin, type Standin } from '../protocols/fp/sweep/helpers';
import { PackageLayout } from '../../../src/core/protocols/fp/package/layout';
import { isWorkerAlive, waitForWorkerExit } from '../../../src/core/runner/control';
import { startChatGate } from '../../helpers/chatGate';
import { runCli } from '../../helpers/captureOutput';

const NO_STACK = /\n\s+at \S/;

/** `fpsweep <args>` as its own process (two at once must be two processes), from the sources under tsx. */
function cliProcess(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', path.join(REPO, 'src/cli/main.ts'), ...args], { cwd: REPO, timeout: 120_000 }, (error, out, err) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, out, err }),
    );
  });
}

describe('hostile roots: FP package locks (issue 33, attacks 7 and 8)', function () {
  this.timeout(180_000);
  let server: Standin;
  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    await getSamplePackage();
    server = await startStandin();
  });
  after(() => server?.stop());

  it('run --detach twice at once: one worker starts, the other exits 2 naming its pid, no stack trace (attack 7)', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    // The gate passes the pre-flight's request and holds the sweep's: the winner holds the lock until stopped.
    const gate = await startChatGate(server.url, 1);
    try {
      const args = ['run', '--package', sample.root, '--bench', 'EgoSchema', '--conds', 'v_1', '--endpoints', gate.url, '--detach'];
      const both = await Promise.all([cliProcess(args), cliProcess(args)]);
      const started = both.filter((r) => r.code === 0);
      const refused = both.filter((r) => r.code !== 0);
      assert.equal(started.length, 1, both.map((r) => `exit ${r.code}: ${r.out}${r.err}`).join('\n---\n'));
      const pid = Number(/worker started: pid (\d+)/.exec(started[0].out)?.[1]);
      assert.equal(refused[0].code, 2, refused[0].err);
      assert.match(refused[0].err, new RegExp(`another fpsweep worker is running on this run root: pid ${pid} `));
      assert.doesNotMatch(refused[0].err, NO_STACK);
      assert.equal(await isWorkerAlive(layout), true);
    } finally {
      gate.release();
      await runCli(['stop', '--package', sample.root]);
      assert.equal(await waitForWorkerExit(layout, 60_000, 100), true, 'the worker stopped');
      await gate.close();
    }
  });

  it('`.fpsweep` planted as a link to a folder outside: the lock is refused with the path (exit 2), nothing ever written there', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    const outside = await fs.mkdtemp(path.join(os.tmpdir(), 'hostile-statedir-'));
    await fs.rm(layout.stateDir, { recursive: true, force: true });
    await fs.symlink(outside, layout.stateDir);
    // Every entry made in the outside folder, even one removed again (a lock taken and released), is seen.
    const events: string[] = [];
    const watcher = watch(outside, (_, name) => events.push(String(name)));
    try {
      const r = await runCli(['run', '--package', sample.root, '--bench', 'EgoSchema', '--conds', 'v_1', '--endpoints', server.url]);
      assert.equal(r.code, 2, r.err.slice(-2000));
      assert.ok(r.err.includes(`${layout.stateDir}: is a symbolic link`), r.err.slice(-2000));
      assert.doesNotMatch(r.err, NO_STACK);
    } finally {
      watcher.close();
    }
    assert.deepEqual(events, [], 'nothing was written outside');
    assert.deepEqual(await fs.readdir(outside), []);
  });

  it('an empty worker.lock with no worker alive does not block `run` (attack 8)', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    await fs.mkdir(path.dirname(layout.lockFile), { recursive: true });
    await fs.writeFile(layout.lockFile, '');
    const r = await runCli(['run', '--package', sample.root, '--bench', 'EgoSchema', '--conds', 'v_1', '--endpoints', server.url]);
    assert.match(r.err, /taking over a torn lock .*worker\.lock \(empty/);
    assert.doesNotMatch(r.err, /another fpsweep worker/);
    assert.equal(r.code, 0, r.err.slice(-2000));
    await fs.access(layout.lockFile).then(
      () => assert.fail('lock left behind'),
      () => undefined,
    );
  });
});
