// A run on --endpoints whose only server stops answering (the stand-in's crashAfter: it dies, its port refuses):
// nothing of ours restarts a server we did not launch, so the run must stop on its own, loudly — exit 1 with the
// URL, the server's words and what to do — keeping every row, and the same command resumes once the server is back.
// A server that answers again within --fail-down must not stop the run. The CLI runs as a process of its own, as
// typed; every wait is for a state (an exit, a line printed), bounded, and says what it waited for.
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS } from '../sample/fixture';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { readStatus } from '../../../../../src/core/protocols/fp/status/status';
import { spawnCli, type CliProcess } from '../../../../helpers/scancel';
import { exitedWithin } from '../../../../helpers/procExplain';
import { waitFor } from '../../../../helpers/waitFor';
import { artifactKey, assertConsistent, Door, freePort, readArtifacts, startStandin, type Standin } from './helpers';

const CONDS = 'v_8_s224';
/** A stopped run ends within this of its server's death: the client's retries (≤ 7.5 s), --fail-down, the drain (~14 s here). */
const STOP_WITHIN_MS = 30_000;
/** A whole run of this plan on the stand-in. */
const RUN_WITHIN_MS = 120_000;

async function failureKinds(layout: PackageLayout): Promise<string[]> {
  const text = await fs.readFile(layout.failuresLog, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { kind: string }).kind);
}

describe('runner: the only --endpoints server stops answering', function () {
  this.timeout(300_000);
  let standins: Standin[] = [];
  let clis: CliProcess[] = [];
  let doors: Door[] = [];
  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    await getSamplePackage();
  });
  afterEach(async () => {
    for (const c of clis) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
    await Promise.all(standins.map((s) => s.stop()));
    await Promise.all(doors.map((d) => d.shut()));
    standins = [];
    clis = [];
    doors = [];
  });

  it('it dies: exit 1 naming the URL, its words and what to do, rows kept; the same command resumes once it is back', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    // The stand-in answers the pre-flight and 7 requests, then dies at the 9th (exit 1): its port refuses from then on.
    const first = await startStandin({ env: { FPSWEEP_STANDIN_FAULTS: 'crashAfter=8' } });
    standins.push(first);
    const died = new Promise<void>((resolve) => first.child.once('exit', () => resolve()));
    const args = ['run', '--package', sample.root, '--endpoints', first.url, '--conds', CONDS];
    // The rule's bound as the knob a user sets (FPSWEEP_FAIL_DOWN, or --fail-down 1).
    const env = { FPSWEEP_FAIL_DOWN: '1' };
    const cli = spawnCli(args, env);
    clis.push(cli);
    await died;
    const stopped = await exitedWithin(cli, STOP_WITHIN_MS, 'the run whose only server died did not end');
    assert.equal(stopped.code, 1, stopped.out);
    assert.match(stopped.out, /FAILED: \d+ rows added .* left to do, .*the only server unreachable for 1 s \(the rule: --fail-down 1\)/);
    assert.match(stopped.out, new RegExp(`the server said: ECONN(REFUSED|RESET)[^\\n]*\\(${first.url}\\)`), 'its words and its URL');
    assert.match(stopped.out, new RegExp(`do: restart the server at ${first.url}: .*then run the same command again: it resumes`));
    const status = (await readStatus(layout))!;
    assert.equal(status.state, 'failed');
    assert.equal(status.stopReason?.rule, 'servers_down');
    assert.equal(status.stopReason?.server, first.url);
    // No request of the plan was written off as a failure for a server that gave no answer: they stay to do.
    assert.deepEqual(
      (await failureKinds(layout)).filter((k) => k !== 'no_video'),
      [],
    );
    const kept = await readArtifacts(layout);
    const existing = new Set(sample.plan.existing.map((e) => artifactKey(e.benchmark, e.item_id, e.condition)));
    assertConsistent(kept, existing);
    const keptKeys = kept.rows.filter((r) => r.condition === CONDS).map((r) => artifactKey(r.benchmark, r.item_id, r.condition));
    assert.ok(keptKeys.length > 0, 'rows were written before the server died');

    // The server is back on its address (as the user would restart it); the same command resumes to the end.
    const port = Number(new URL(first.url).port);
    standins.push(await startStandin({ port }));
    const again = spawnCli(args, env);
    clis.push(again);
    const done = await exitedWithin(again, RUN_WITHIN_MS, 'the resumed run did not end');
    assert.equal(done.code, 0, done.out);
    assert.match(done.out, /^done: \d+ rows added/m);
    const after = await readArtifacts(layout);
    assertConsistent(after, existing);
    const afterKeys = new Set(after.rows.map((r) => artifactKey(r.benchmark, r.item_id, r.condition)));
    assert.deepEqual(
      keptKeys.filter((k) => !afterKeys.has(k)),
      [],
      'every row of the stopped run is still there',
    );
    const end = (await readStatus(layout))!;
    assert.equal(end.state, 'done');
    assert.equal(end.stopReason, null);
  });

  it('it answers again within --fail-down: the run goes on to the end (exit 0), saying so', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    // While the hold file exists the stand-in holds its answers: the run cannot end during the outage.
    const hold = path.join(sample.root, 'hold');
    const standin = await startStandin({ env: { FPSWEEP_STANDIN_HOLD_FILE: hold } });
    standins.push(standin);
    const door = new Door(await freePort(), Number(new URL(standin.url).port));
    doors.push(door);
    await door.open();
    const cli = spawnCli(['run', '--package', sample.root, '--endpoints', door.url, '--conds', CONDS, '--fail-down', '4']);
    clis.push(cli);
    // Shut once rows are being written; opened again as soon as the run says it noticed (its clock has started).
    await waitFor(() => /running: [1-9]\d*\/\d+ rows/.test(cli.out()) || cli.child.exitCode !== null, RUN_WITHIN_MS, 'the run writing rows');
    await fs.writeFile(hold, '');
    await door.shut();
    await waitFor(
      () => cli.out().includes(`(${door.url}) unreachable: `) || cli.child.exitCode !== null,
      STOP_WITHIN_MS,
      () => `the run saying its server is unreachable; it printed:\n${cli.out()}`,
    );
    await fs.rm(hold);
    await door.open();
    const done = await exitedWithin(cli, RUN_WITHIN_MS, 'the run whose server came back did not end');
    assert.equal(done.code, 0, done.out);
    assert.match(done.out, /unreachable: ECONN\w+.*the run stops if it stays so for 4 s \(--fail-down 4\)/);
    assert.match(done.out, new RegExp(`server 0 \\(${door.url}\\) answers again`));
    assert.match(done.out, /^done: \d+ rows added/m);
    const status = (await readStatus(layout))!;
    assert.equal(status.state, 'done');
    assert.equal(status.stopReason, null);
  });
});
