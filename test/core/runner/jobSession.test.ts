// runJobInSession, the data jobs' worker side: the body runs in a 'drain' session on the root under a run id named
// after the run type, its exit code comes back, and whatever the session or the body throws ends as one
// `<name>: …` line on stderr with exitFor's code (2 for a held lock or the user's error, 1 otherwise).
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../src/core/errors';
import { runJobInSession } from '../../../src/core/runner/jobSession';
import { defaultRunRoot, type RunRoot } from '../../../src/core/runner/runRoot';
import type { RunSession } from '../../../src/core/runner/runSession';

describe('runJobInSession', () => {
  let dir: string;
  let root: RunRoot;
  let stderr: string[];
  let realWrite: typeof process.stderr.write;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-jobsession-'));
    root = defaultRunRoot(dir);
    stderr = [];
    realWrite = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      stderr.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
  });

  afterEach(async () => {
    process.stderr.write = realWrite;
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("runs the body in a drain session named after the run type and returns the body's code; the lock is released", async () => {
    let seen: RunSession | null = null;
    const code = await runJobInSession({ name: 'cut', root, tickMs: 50 }, async (s) => {
      seen = s;
      assert.ok(await fs.stat(root.lockFile));
      return 1;
    });
    assert.equal(code, 1);
    const s = seen as RunSession | null;
    assert.ok(s);
    assert.match(s.runId, new RegExp(`^cut-[0-9a-z]+-${process.pid}$`));
    assert.equal(s.options.policy, 'drain');
    assert.equal(s.options.tickMs, 50);
    await assert.rejects(fs.stat(root.lockFile));
    assert.deepEqual(stderr, []);
  });

  it('a lock held by a live process: exit 2 with one "<name>: …" line, and the body never runs', async () => {
    await fs.mkdir(root.stateDir, { recursive: true });
    await fs.writeFile(
      root.lockFile,
      JSON.stringify({ pid: process.pid, hostname: os.hostname(), startedAt: '2026-01-01T00:00:00.000Z', runId: 'other' }) + '\n',
    );
    let ran = false;
    const code = await runJobInSession({ name: 'caption', root }, async () => {
      ran = true;
      return 0;
    });
    assert.equal(code, 2);
    assert.equal(ran, false);
    assert.equal(stderr.length, 1);
    assert.match(stderr[0], /^caption: .+\n$/);
  });

  it("the body's errors: the user's exit 2 with the message, anything else 1 with the stack", async () => {
    assert.equal(await runJobInSession({ name: 'cut', root }, () => Promise.reject(new InputError('a shared stem'))), 2);
    assert.deepEqual(stderr, ['cut: a shared stem\n']);
    stderr.length = 0;
    assert.equal(await runJobInSession({ name: 'cut', root }, () => Promise.reject(new Error('boom'))), 1);
    assert.match(stderr.join(''), /^cut: Error: boom\n {4}at /);
  });
});
