// Issue 43: a scheduler's cancel (Slurm's `scancel` with proctrack/linuxproc signals SIGTERM to every process of the
// job at once: the worker and its ffmpeg decodes) drains the run and logs no false failure; the run requeued then
// ends with the failures of one uncancelled run, no more (no "decode … exit 255" line, no no_video line twice).
// The signals go to the real processes; the test waits for states (a decode running, the worker gone), not for time.
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS } from '../sample/fixture';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { isWorkerAlive, readLock } from '../../../../../src/core/runner/control';
import { main as cliMain } from '../../../../../src/cli/main';
import { captureOutput } from '../../../../helpers/captureOutput';
import { waitFor } from '../../../../helpers/waitFor';
import { descendants } from '../../../../helpers/scancel';
import { artifactKey, assertConsistent, readArtifacts, rowKeySet, startStandin, withEnv, type Standin } from './helpers';

const BENCHES = ['MVBench', 'NExTQA', 'EgoSchema'];
const CONDS = ['v_blind', 'v_1', 'v_8_s224', 'v_32_s168'];

const alive = (pid: number) =>
  fs.access(`/proc/${pid}`).then(
    () => true,
    () => false,
  );

interface FailureLine {
  benchmark: string;
  item_id: string;
  condition: string;
  kind: string;
  message: string;
}
async function failures(layout: PackageLayout): Promise<FailureLine[]> {
  const text = await fs.readFile(layout.failuresLog, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}
const counted = (fs: FailureLine[]) =>
  fs
    .map((f) => `${f.benchmark}/${f.item_id}/${f.condition} ${f.kind}`)
    .sort()
    .join('\n');

describe('fp sweep: cancelled as a scheduler does (SIGTERM to every process), then requeued (issue 43)', function () {
  this.timeout(300_000);
  let server: Standin;
  let work: string;

  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    await getSamplePackage();
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-cancel-'));
    server = await startStandin({ env: { FPSWEEP_STANDIN_LATENCY: 'a=0,b=0' } });
  });
  after(async () => {
    await server?.stop();
    await fs.rm(work, { recursive: true, force: true });
  });

  it('drains, logs no false failure; requeued, it ends with the rows and failures of one uncancelled run', async () => {
    const args = (root: string) => ['run', '--package', root, '--bench', BENCHES.join(','), '--conds', CONDS.join(','), '--endpoints', server.url];
    // The uncancelled run: the reference.
    const whole = await copySamplePackage();
    const ref = await captureOutput(() => cliMain(args(whole.root)));
    assert.ok([0, 1].includes(ref.code), ref.out + ref.err);
    const refLayout = new PackageLayout(whole.root);
    const refFailures = await failures(refLayout);

    // The cancelled run: its ffmpeg reads at a fifth of the video's rate and says its pid, so decodes are under way.
    const cancelled = await copySamplePackage();
    const layout = new PackageLayout(cancelled.root);
    const pids = path.join(work, 'ffmpeg-pids');
    await fs.mkdir(pids);
    const slow = path.join(work, 'slow-ffmpeg');
    await fs.writeFile(slow, `#!/bin/sh\ntouch '${pids}'/$$\nexec ffmpeg -readrate 0.2 "$@"\n`, { mode: 0o755 });
    const started = await withEnv({ FFMPEG_BIN: slow }, () => captureOutput(() => cliMain([...args(cancelled.root), '--detach'])));
    assert.equal(started.code, 0, started.out + started.err);
    const worker = (await readLock(layout))!.pid;
    let decoding: number[] = [];
    await waitFor(
      async () => {
        const mine = new Set(await descendants(worker));
        decoding = (await fs.readdir(pids)).map(Number).filter((p) => mine.has(p));
        return decoding.length > 0;
      },
      120_000,
      'an ffmpeg decode of the worker running',
    );
    // scancel, as proctrack/linuxproc delivers it: SIGTERM to the worker and to each of its descendants.
    for (const p of [worker, ...(await descendants(worker))]) process.kill(p, 'SIGTERM');
    await waitFor(async () => !(await isWorkerAlive(layout)) && !(await alive(worker)), 120_000, 'the cancelled worker gone');
    const log = await fs.readFile(layout.runnerLog, 'utf8');
    assert.match(log, /stop requested \((SIGTERM|a child was stopped from outside)/, log);
    const afterCancel = await failures(layout);
    assert.deepEqual(
      afterCancel.filter((f) => f.kind !== 'no_video'),
      [],
      'no failure line but the sample’s videos that are missing: no "decode … exit 255", no server_down',
    );

    // Requeued: the same command, to the end.
    const rerun = await captureOutput(() => cliMain(args(cancelled.root)));
    assert.equal(rerun.code, ref.code, rerun.out + rerun.err);
    const a = await readArtifacts(layout);
    assertConsistent(a, new Set(cancelled.plan.existing.map((e) => artifactKey(e.benchmark, e.item_id, e.condition))));
    assert.deepEqual([...rowKeySet(a)].sort(), [...rowKeySet(await readArtifacts(refLayout))].sort(), 'the same rows as the uncancelled run');
    assert.equal(counted(await failures(layout)), counted(refFailures), 'the same failure lines as the uncancelled run, none twice');
  });
});
