// `fpsweep status` / `stop` find the run type through the registry: a third protocol, registered with
// PROTOCOLS.with(fake), is shown and stopped with no edit to the verbs; a folder no protocol (or two) claims is exit 2.
import { defaultRunRoot } from '../../../src/core/runner/runRoot';
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { UsageError } from '../../../src/core/errors';
import { PROTOCOLS } from '../../../src/core/protocols/registry';
import { type RunProtocol } from '../../../src/core/protocols/types';
import { statusVerb } from '../../../src/cli/verbs/status';
import { stopVerb } from '../../../src/cli/verbs/stop';
import { captureOutput } from '../../helpers/captureOutput';

function fakeProtocol(id: string, marker: string): RunProtocol<unknown, null, null> {
  return {
    id,
    title: `Fake ${id}`,
    findRoots: async (dir) => (fs.existsSync(path.join(dir, marker)) ? [path.resolve(dir)] : []),
    runRoot: (root) => defaultRunRoot(root),
    readProgress: async (root) => ({
      protocol: id,
      root,
      runId: 'f1',
      live: false,
      state: 'done',
      summary: 'all three asked',
      groups: [
        {
          key: 'ask',
          label: 'ask',
          state: 'done',
          done: 3,
          todo: 0,
          failed: 0,
          rows: [{ key: 'a', label: 'part a', state: 'done', done: 3, todo: 0, failed: 0 }],
        },
      ],
      detail: null,
    }),
    job: { schema: z.unknown() },
    report: async () => null,
  };
}

/** The exit code and stdout (stderr is captured too, and left out of the comparisons). */
async function capture(fn: () => Promise<number>): Promise<{ code: number; out: string }> {
  const { code, out } = await captureOutput(fn);
  return { code, out };
}

describe('fpsweep status / stop: the run type from the registry', () => {
  const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-regverbs-'));

  it('a fake third protocol: status prints its snapshot (text and --json), stop its words, no verb edited', async () => {
    const root = dir();
    fs.writeFileSync(path.join(root, 'fake.run'), '');
    const registry = PROTOCOLS.with(fakeProtocol('fake', 'fake.run'));
    const text = await capture(() => statusVerb(['--package', root], registry));
    assert.equal(text.code, 0);
    assert.equal(
      text.out,
      `Fake fake run f1: done · ${root}\n  ask done: 3 done, 0 to do, 0 failed\n    part a done: 3 done, 0 to do, 0 failed\n  last: all three asked\n`,
    );
    const json = await capture(() => statusVerb(['--package', root, '--json', '--wait'], registry));
    assert.equal(json.code, 0, 'done: --wait exits 0');
    assert.equal(JSON.parse(json.out).protocol, 'fake');
    const stop = await capture(() => stopVerb(['--package', root], registry));
    assert.deepEqual(stop, { code: 0, out: `no Fake fake worker is running on ${root}\n` });
    // Without the fake in the registry the folder is no run root.
    await assert.rejects(
      statusVerb(['--package', root], PROTOCOLS),
      (e: Error) => e instanceof UsageError && /is not a run root of any run type \(fp/.test(e.message),
    );
  });

  it('stop --wait and status --wait are bounded: a worker that holds the lock and writes nothing ends both with exit 1', async function () {
    this.timeout(30_000);
    const root = dir();
    fs.writeFileSync(path.join(root, 'fake.run'), '');
    const hung: RunProtocol<unknown, null, null> = {
      ...fakeProtocol('fake', 'fake.run'),
      statusView: async () => ({ live: true, line: 'asking', text: 'asking', json: { live: true }, ok: false }),
      // The stop file is the request a holder on another host sees.
      describeStop: (req) => ({ line: `asked worker pid ${req.pid} to stop (stop file)` }),
    };
    const registry = PROTOCOLS.with(hung);
    // A holder on another host: alive as far as this host can tell, and never signalled from here.
    const runRoot = defaultRunRoot(root);
    fs.mkdirSync(runRoot.stateDir, { recursive: true });
    fs.writeFileSync(runRoot.lockFile, JSON.stringify({ pid: 4242, hostname: `not-${os.hostname()}`, startedAt: new Date().toISOString() }) + '\n');
    const stopped = await captureOutput(() => stopVerb(['--package', root, '--wait', '--timeout', '1'], registry));
    assert.equal(stopped.code, 1);
    assert.match(stopped.err, new RegExp(`worker pid 4242 still holds .*worker\\.lock after 1 s: it has not finished stopping`));
    const t0 = Date.now();
    const followed = await captureOutput(() => statusVerb(['--package', root, '--wait', '--stale', '1'], registry));
    assert.equal(followed.code, 1);
    assert.match(followed.err, /the worker holds the run's lock but has not written .* for 1 s: it looks hung/);
    assert.ok(Date.now() - t0 < 10_000, `status --wait gave up after ${Date.now() - t0} ms`);
  });

  it('status --wait: a rank that starts after the wait began counts as the run writing (it is not called hung)', async function () {
    this.timeout(30_000);
    const root = dir();
    fs.writeFileSync(path.join(root, 'fake.run'), '');
    const rankRoot = (k: number) => defaultRunRoot(path.join(root, `rank-${k}`));
    // Rank 1 wrote its status once, before the wait, and writes no more (its node is done with its share).
    fs.mkdirSync(rankRoot(1).stateDir, { recursive: true });
    fs.writeFileSync(rankRoot(1).statusFile, '{}\n');
    let reads = 0;
    let writes = 0;
    let writer: NodeJS.Timeout | undefined;
    const ranked: RunProtocol<unknown, null, null> = {
      ...fakeProtocol('fake', 'fake.run'),
      // The ranks on disk, as a sharded run type lists them.
      runRoots: async () => [1, 2].filter((k) => fs.existsSync(rankRoot(k).stateDir)).map(rankRoot),
      statusView: async () => {
        // The verb's second read is inside its wait: only then does rank 2 start, writing its status every 200 ms.
        if (++reads === 2) {
          fs.mkdirSync(rankRoot(2).stateDir, { recursive: true });
          const write = () => fs.writeFileSync(rankRoot(2).statusFile, `{"writes":${++writes}}\n`);
          write();
          writer = setInterval(() => {
            write();
            if (writes === 25) clearInterval(writer);
          }, 200);
        }
        const live = reads < 2 || writes < 25;
        return { live, line: `rank 2 wrote ${writes}`, text: 'asking', json: { live }, ok: !live };
      },
    };
    try {
      const followed = await captureOutput(() => statusVerb(['--package', root, '--wait', '--stale', '1'], PROTOCOLS.with(ranked)));
      assert.doesNotMatch(followed.err, /looks hung/);
      assert.equal(followed.code, 0, followed.err);
      assert.equal(writes, 25, 'followed until the late rank ended');
    } finally {
      clearInterval(writer);
    }
  });

  it('a folder two protocols claim: status shows both, --json, --wait and stop need --run-type; none: exit 2 naming the candidates', async () => {
    const registered = PROTOCOLS.all.map((p) => `${p.id} (${p.title})`).join(', ');
    const root = dir();
    fs.writeFileSync(path.join(root, 'fake.run'), '');
    const two = PROTOCOLS.with(fakeProtocol('fake', 'fake.run')).with(fakeProtocol('twin', 'fake.run'));
    const both = await capture(() => statusVerb(['--package', root], two));
    assert.equal(both.code, 0);
    assert.match(both.out, /^Fake fake run f1: done[\s\S]*\n\nFake twin run f1: done/);
    await assert.rejects(
      statusVerb(['--package', root, '--json'], two),
      (e: Error) => e instanceof UsageError && e.message.includes('give --run-type fake|twin with --json or --wait'),
    );
    const one = await capture(() => statusVerb(['--package', root, '--json', '--run-type', 'twin'], two));
    assert.equal(JSON.parse(one.out).protocol, 'twin');
    await assert.rejects(
      stopVerb(['--package', root], two),
      (e: Error) =>
        e instanceof UsageError &&
        e.message.includes('is a run root of more than one run type (fake|twin) and none has a live worker; say which with --run-type ID'),
    );
    await assert.rejects(
      statusVerb(['--package', root, '--run-type', 'fp'], two),
      (e: Error) =>
        e instanceof UsageError && e.message.includes('--run-type fp: ') && e.message.includes('a run root of fake (Fake fake), twin (Fake twin) only'),
    );
    await assert.rejects(
      stopVerb(['--package', dir()], two),
      (e: Error) => e instanceof UsageError && e.message.includes(`not a run root of any run type (${registered}, fake (Fake fake)`),
    );
  });
});
