// `fpsweep stop --package VIDEOS_ROOT` reaches every rank of a sharded caption run: each rank's state under
// .fpsweep-caption/rank-K-of-N/ gets its stop file, each lock holder on this host its SIGTERM, one line per rank.
// The ranks' workers are stand-in processes that hold a rank's lock (its pid in worker.lock) and sleep.
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { stopVerb } from '../../../../src/cli/verbs/stop';
import { CaptionLayout } from '../../../../src/core/protocols/caption/layout';
import { PROTOCOLS } from '../../../../src/core/protocols/registry';
import { stopFile } from '../../../../src/core/runner/runRoot';
import { captureOutput } from '../../../helpers/captureOutput';

interface Sleeper {
  child: ChildProcess;
  exited: Promise<NodeJS.Signals | number | null>;
}

function sleeper(): Sleeper {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  return { child, exited };
}

function holdLock(root: string, index: number, pid: number, hostname = os.hostname()): string {
  const runRoot = new CaptionLayout(root, { index, count: 2 }).runRoot;
  fs.mkdirSync(runRoot.stateDir, { recursive: true });
  fs.writeFileSync(runRoot.lockFile, JSON.stringify({ pid, hostname, startedAt: new Date().toISOString(), runId: `r${index}` }) + '\n');
  return runRoot.stateDir;
}

describe('fpsweep stop on a sharded caption run: every rank', function () {
  this.timeout(30_000);
  let root: string;
  const started: Sleeper[] = [];
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-caption-stop-'));
    fs.mkdirSync(path.join(root, 'v1'));
    fs.writeFileSync(path.join(root, 'v1', 'segments.json'), '{}');
  });
  afterEach(async () => {
    for (const s of started.splice(0)) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('two live ranks on this host: both stop files written, both holders signalled, --wait returns once both are gone', async () => {
    const [a, b] = [sleeper(), sleeper()];
    started.push(a, b);
    const dirs = [holdLock(root, 1, a.child.pid!), holdLock(root, 2, b.child.pid!)];
    const res = await captureOutput(() => stopVerb(['--package', root, '--wait', '--timeout', '20'], PROTOCOLS));
    assert.equal(res.code, 0, res.err);
    const lines = res.out.trimEnd().split('\n');
    assert.deepEqual(lines.slice(0, 2), [
      `.fpsweep-caption/rank-1-of-2: asked the caption worker (pid ${a.child.pid}) to stop: the clips in flight finish and are recorded, no new clip is sent`,
      `.fpsweep-caption/rank-2-of-2: asked the caption worker (pid ${b.child.pid}) to stop: the clips in flight finish and are recorded, no new clip is sent`,
    ]);
    assert.equal(lines[2], `worker pid ${a.child.pid}, ${b.child.pid} has exited`);
    for (const d of dirs) assert.ok(fs.existsSync(stopFile({ stateDir: d })), `stop file in ${d}`);
    assert.deepEqual(await Promise.all([a.exited, b.exited]), ['SIGTERM', 'SIGTERM']);
  });

  it("a rank on another host: its stop file is written and the verb says so (exit 1); this host's rank is signalled", async () => {
    const a = sleeper();
    started.push(a);
    const dirs = [holdLock(root, 1, a.child.pid!), holdLock(root, 2, 4242, `not-${os.hostname()}`)];
    const res = await captureOutput(() => stopVerb(['--package', root], PROTOCOLS));
    assert.equal(res.code, 1);
    assert.match(res.out, new RegExp(`^\\.fpsweep-caption/rank-1-of-2: asked the caption worker \\(pid ${a.child.pid}\\) to stop`));
    assert.match(res.err, /^\.fpsweep-caption\/rank-2-of-2: the caption worker \(pid 4242\) runs on another host: its next tick reads the stop file/);
    for (const d of dirs) assert.ok(fs.existsSync(stopFile({ stateDir: d })), `stop file in ${d}`);
    assert.equal(await a.exited, 'SIGTERM');
  });

  it('an unsharded run: one line, no rank named (as before)', async () => {
    const a = sleeper();
    started.push(a);
    const runRoot = new CaptionLayout(root).runRoot;
    fs.mkdirSync(runRoot.stateDir, { recursive: true });
    fs.writeFileSync(runRoot.lockFile, JSON.stringify({ pid: a.child.pid, hostname: os.hostname(), startedAt: new Date().toISOString() }) + '\n');
    const res = await captureOutput(() => stopVerb(['--package', root], PROTOCOLS));
    assert.equal(res.code, 0, res.err);
    assert.equal(res.out, `asked the caption worker (pid ${a.child.pid}) to stop: the clips in flight finish and are recorded, no new clip is sent\n`);
    assert.equal(await a.exited, 'SIGTERM');
  });
});
