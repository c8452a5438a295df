// `avtime run` typed from a folder (relative paths, the CLI a process of its own) when a given target server dies:
//  - --keep-going with two target servers, one dies: the run goes on with the live one (its shard finishes), says
//    loudly which server is unreachable with its words, writes no row of the dead one's shard off, and stops (exit 1)
//    once every server with rows left has been unreachable for --fail-down; with the server back, the same command
//    with --resume asks only the rows left (the written ones are not asked again) and ends done, each row once.
//  - canonical (SPEC-AVTIME §3: no resume, fail closed): the first failed row stops the run (exit 1), and what it
//    prints is true: the server's words, what to do, and a new run (not --resume). The same command again, and
//    --resume, are refused (exit 2) saying so, the root untouched; the new run it advises ends done.
//  - while a server is unreachable, the status file and `fpsweep status` show its shard (or, for the given judge, its
//    judge pass) waiting on it (URL, since when, the --fail-down bound), not running; once it answers, no longer.
// Every wait is for a state (a server's exit, the CLI's exit), bounded, and says what it waited for.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeAvtimeSample } from '../../../../../src/core/protocols/avtime/sample';
import { AvtimeRunLayout } from '../../../../../src/core/protocols/avtime/stages/layout';
import { readAvtimeStatus, type AvtimeStatus } from '../../../../../src/core/protocols/avtime/stages/statusSchema';
import { buildStandin } from '../../../serving/helpers';
import { Door, freePort, startStandin, type Standin } from '../../fp/sweep/helpers';
import { spawnCli, type CliProcess } from '../../../../helpers/scancel';
import { exitedWithin } from '../../../../helpers/procExplain';
import { waitFor } from '../../../../helpers/waitFor';
import { copyBench, listFiles, tmpDir } from './fixtures';

/** A stopped run ends within this of its server's death: the client's retries (≤ 8 s), --fail-down 1, the drain. */
const STOP_WITHIN_MS = 60_000;
/** A whole run of the sample bench on the stand-ins. */
const RUN_WITHIN_MS = 120_000;

function lines(file: string): string[] {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}
const ids = (file: string) => lines(file).map((l) => (JSON.parse(l) as { id: string }).id);
/** The ids of the file's complete lines (a kill may tear the last one: a resume sets it aside). */
function completeIds(file: string): string[] {
  return lines(file).flatMap((l) => {
    try {
      return [(JSON.parse(l) as { id: string }).id];
    } catch {
      return [];
    }
  });
}

/** Every file under `dir` with its bytes. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(listFiles(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'latin1')]));
}

describe('avtime run typed from a folder: a given target (or judge) server dies', function () {
  this.timeout(300_000);
  let sample: string;
  let standins: Standin[] = [];
  let clis: CliProcess[] = [];
  let doors: Door[] = [];

  before(async function () {
    this.timeout(120_000);
    await buildStandin();
    sample = path.join(tmpDir('tdown'), 'bench');
    await makeAvtimeSample({ out: sample });
  });
  afterEach(async () => {
    for (const c of clis) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
    await Promise.all(standins.map((s) => s.stop()));
    await Promise.all(doors.map((d) => d.shut()));
    standins = [];
    clis = [];
    doors = [];
  });

  async function standin(role: 'target' | 'judge', faults = '', port?: number, env: Record<string, string> = {}): Promise<Standin> {
    const s = await startStandin({
      port,
      mediaPath: role === 'target' ? '/' : undefined,
      env: { FPSWEEP_STANDIN_ROLE: role, FPSWEEP_STANDIN_LATENCY: 'a=0,b=0,shared=0', FPSWEEP_STANDIN_FAULTS: faults, FPSWEEP_STANDIN_JUDGE: '', ...env },
    });
    standins.push(s);
    return s;
  }

  /** `fpsweep <args>` typed in `cwd`, with the rule's bound as the knob a user sets. */
  function typed(cwd: string, args: string[]): CliProcess {
    const cli = spawnCli(args, { FPSWEEP_FAIL_DOWN: '1' }, cwd);
    clis.push(cli);
    return cli;
  }

  /** A folder holding a fresh copy of the sample bench as `bench`. */
  const folder = () => path.dirname(copyBench(sample, 'tdown'));

  it('--keep-going, one of two target servers dies: the other shard finishes, the run stops naming it, --resume asks only what is left', async () => {
    const cwd = folder();
    const layout = new AvtimeRunLayout(path.join(cwd, 'out'), 'out');
    const live = await standin('target');
    // It answers its pre-flight request, then dies when its shard's first row arrives: its port refuses from then on.
    const dead = await standin('target', 'crashAfter=1');
    const judge = await standin('judge');
    const died = new Promise<void>((resolve) => dead.child.once('exit', () => resolve()));
    const args = ['avtime', 'run', '--bench-root', 'bench', '--output-root', 'out', '--target-endpoints', `${live.url},${dead.url}`];
    args.push('--judge-endpoint', judge.url, '--target-batch', '1', '--keep-going');
    const first = typed(cwd, args);
    await died;
    const stopped = await exitedWithin(first, STOP_WITHIN_MS, 'the run whose second target server died did not end');
    assert.equal(stopped.code, 1, stopped.out);
    // Loud when it happens: the server, its words, and that the run goes on with the other.
    assert.match(
      stopped.out,
      new RegExp(`server 1 \\(${dead.url}\\) unreachable: ECONN\\w+[^\\n]*; the run goes on with the others and stops if every server with work left`),
    );
    // The last line: the rule, the dead server's words and URL, what to do and how to resume.
    const last = stopped.out.trimEnd().split('\n').pop()!;
    assert.match(last, /^stopped on its own: the only server with work left \(of 2; the others have finished theirs\) unreachable for 1 s/);
    assert.match(last, new RegExp(`the server said: ECONN(REFUSED|RESET)[^;]*\\(${dead.url}\\)`));
    assert.match(last, new RegExp(`do: restart the server at ${dead.url}: .*then run the same command with --resume \\(run id out\\): it resumes`));
    assert.doesNotMatch(stopped.out, /failed \(server_down\)/, 'no row of the dead server written off');
    // The live server's shard is complete; the dead one's rows stay to do; no shard is summed up (inference incomplete).
    assert.deepEqual(ids(layout.rawPredictions(0)).sort(), ['avtime_sample_001', 'avtime_sample_002', 'avtime_sample_003', 'avtime_sample_004']);
    assert.deepEqual(ids(layout.rawPredictions(1)), []);
    assert.ok(!fs.existsSync(layout.shardSummary(0)) && !fs.existsSync(layout.shardSummary(1)));
    const shard0 = fs.readFileSync(layout.rawPredictions(0), 'utf8');

    // The server is back on its address (as the user would restart it); the same command with --resume ends done.
    await standin('target', '', Number(new URL(dead.url).port));
    const again = await exitedWithin(typed(cwd, [...args, '--resume']), RUN_WITHIN_MS, 'the resumed run did not end');
    assert.equal(again.code, 0, again.out);
    assert.equal(fs.readFileSync(layout.rawPredictions(0), 'utf8'), shard0, 'the finished shard is kept as it was (no row asked again)');
    assert.deepEqual(ids(layout.rawPredictions(1)).sort(), ['avtime_sample_005', 'avtime_sample_006', 'avtime_sample_007']);
    assert.ok(fs.existsSync(layout.summary), 'the run went on to its scores');
  });

  it('--keep-going, one of two target servers unreachable, back within --fail-down: the run goes on to the end, saying so', async () => {
    const cwd = folder();
    const layout = new AvtimeRunLayout(path.join(cwd, 'out'), 'out');
    const live = await standin('target');
    // The second server behind a TCP door, its answers slow enough that its shard is under way when the door shuts.
    const slow = await standin('target', '', undefined, { FPSWEEP_STANDIN_LATENCY: 'a=2,b=0,shared=0' });
    const door = new Door(await freePort(), Number(new URL(slow.url).port));
    doors.push(door);
    await door.open();
    const judge = await standin('judge');
    const args = ['avtime', 'run', '--bench-root', 'bench', '--output-root', 'out', '--target-endpoints', `${live.url},${door.url}`];
    args.push('--judge-endpoint', judge.url, '--target-batch', '1', '--keep-going', '--fail-down', '30');
    const cli = typed(cwd, args);
    // Shut once the shards are under way; opened again as soon as the run says it noticed (its clock has started).
    await waitFor(
      () => /target pre-flight ok/.test(cli.out()) || cli.child.exitCode !== null,
      RUN_WITHIN_MS,
      () => `the pre-flight:\n${cli.out()}`,
    );
    await door.shut();
    await waitFor(
      () => cli.out().includes(`(${door.url}) unreachable: `) || cli.child.exitCode !== null,
      STOP_WITHIN_MS,
      () => `the run saying the second server is unreachable; it printed:\n${cli.out()}`,
    );
    // Where users look: the status file (a write each second), then `fpsweep status` typed in the folder, show the
    // shard as waiting on that server (its URL, since when, the bound), not running.
    let st: AvtimeStatus | null = null;
    const shard1 = async () => (st = await readAvtimeStatus(layout.statusFile))?.shards.find((x) => x.shard === 1);
    await waitFor(
      async () => (await shard1())?.state === 'waiting' || cli.child.exitCode !== null,
      STOP_WITHIN_MS,
      () => `a status write showing shard 1 waiting (last: ${JSON.stringify(st?.shards ?? null)})`,
    );
    assert.equal((await shard1())?.state, 'waiting', `the status file while the server is unreachable: ${JSON.stringify(st)}\n${cli.out()}`);
    const status = await exitedWithin(typed(cwd, ['status', '--package', 'out']), RUN_WITHIN_MS, 'status did not end');
    const shardLine = status.out.split('\n').find((l) => /^ {4}shard 1 /.test(l)) ?? status.out;
    assert.match(
      shardLine,
      new RegExp(`^ {4}shard 1 {2}waiting .* — waiting on ${door.url}, unreachable since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z: ECONN\\w+.*\\(--fail-down 30\\)$`),
    );
    await door.open();
    // It answers again: the shard is no longer waiting (running, or done if its rows went quickly).
    await waitFor(
      async () => !['waiting', undefined].includes((await shard1())?.state) || cli.child.exitCode !== null,
      RUN_WITHIN_MS,
      () => `a status write showing shard 1 no longer waiting (last: ${JSON.stringify(st?.shards ?? null)})`,
    );
    assert.notEqual((await shard1())?.waiting?.endpoint, door.url, 'no longer waiting once it answers');
    const done = await exitedWithin(cli, RUN_WITHIN_MS, 'the run whose server came back did not end');
    assert.equal(done.code, 0, done.out);
    assert.match(done.out, new RegExp(`server 1 \\(${door.url}\\) unreachable: ECONN\\w+[^\\n]*the run goes on with the others`));
    assert.match(done.out, new RegExp(`server 1 \\(${door.url}\\) answers again`));
    assert.doesNotMatch(done.out, /failed \(server_down\)/, 'no row written off');
    assert.deepEqual(ids(layout.rawPredictions(1)).sort(), ['avtime_sample_005', 'avtime_sample_006', 'avtime_sample_007']);
    assert.ok(fs.existsSync(layout.summary), 'the run went on to its scores');
  });

  it('the given judge unreachable mid-pass: the status and `fpsweep status` show the pass waiting on it; stopped, it waits on nothing', async () => {
    const cwd = folder();
    const layout = new AvtimeRunLayout(path.join(cwd, 'out'), 'out');
    const target = await standin('target');
    // The judge behind a TCP door, slow enough that pass 1 is under way (and seen so in the status) when the door shuts.
    const slow = await standin('judge', '', undefined, { FPSWEEP_STANDIN_LATENCY: 'a=1,b=0,shared=0' });
    const door = new Door(await freePort(), Number(new URL(slow.url).port));
    doors.push(door);
    await door.open();
    const args = ['avtime', 'run', '--bench-root', 'bench', '--output-root', 'out', '--target-endpoints', target.url, '--judge-endpoint', door.url];
    const cli = typed(cwd, [...args, '--judge-batch', '1', '--fail-down', '30']);
    let st: AvtimeStatus | null = null;
    const pass1 = async () => (st = await readAvtimeStatus(layout.statusFile))?.judgePasses.find((x) => x.pass === 1);
    const seen = () => `(last: ${JSON.stringify(st?.judgePasses ?? null)})\n${cli.out()}`;
    await waitFor(
      async () => (await pass1())?.state === 'running' || cli.child.exitCode !== null,
      RUN_WITHIN_MS,
      () => `pass 1 running ${seen()}`,
    );
    await door.shut();
    await waitFor(
      async () => (await pass1())?.state === 'waiting' || cli.child.exitCode !== null,
      STOP_WITHIN_MS,
      () => `pass 1 waiting ${seen()}`,
    );
    assert.equal((await pass1())?.state, 'waiting', seen());
    const status = await exitedWithin(typed(cwd, ['status', '--package', 'out']), RUN_WITHIN_MS, 'status did not end');
    const passLine = status.out.split('\n').find((l) => /^ {4}judge pass 1 /.test(l)) ?? status.out;
    assert.match(passLine, new RegExp(`^ {4}judge pass 1 .*waiting .* — waiting on ${door.url}, unreachable since [\\d:.TZ-]+: .*\\(--fail-down 30\\)$`));
    // (Left out: the judge back within --fail-down. A lone given judge that answers again before its /health goes down
    // is not asked again: the run stops at the bound, on the old code too. So the run is stopped here.)
    const stop = await exitedWithin(typed(cwd, ['stop', '--package', 'out', '--wait']), RUN_WITHIN_MS, 'stop did not end');
    assert.equal(stop.code, 0, stop.out);
    await exitedWithin(cli, RUN_WITHIN_MS, 'the stopped run did not end');
    const ended = await readAvtimeStatus(layout.statusFile);
    assert.equal(ended?.state, 'failed');
    assert.ok(!ended?.judgePasses.some((x) => x.state === 'waiting'), `an ended run waits on nothing: ${JSON.stringify(ended?.judgePasses)}`);
  });

  it('canonical, its target server dies: exit 1 with the words and a new run as the way on; the same command twice is refused saying so', async () => {
    const cwd = folder();
    const target = await standin('target', 'crashAfter=2');
    const judge = await standin('judge');
    const died = new Promise<void>((resolve) => target.child.once('exit', () => resolve()));
    const args = ['avtime', 'run', '--bench-root', 'bench', '--output-root', 'out', '--target-endpoints', target.url, '--judge-endpoint', judge.url];
    const first = typed(cwd, [...args, '--target-batch', '1']);
    await died;
    const failed = await exitedWithin(first, STOP_WITHIN_MS, 'the canonical run whose target died did not end');
    assert.equal(failed.code, 1, failed.out);
    const last = failed.out.trimEnd().split('\n').pop()!;
    assert.match(last, /^target inference FAILED: shard0 \d\/7 written, 1 failed .*; nothing later runs\. /);
    assert.match(last, new RegExp(`The first failed row: shard0 avtime_sample_\\d+ \\(server_down\\) at ${target.url}: ECONN`));
    assert.match(
      last,
      new RegExp(`do: restart the server at ${target.url}: .*; then start a new run \\(new --output-root\\): a canonical run's target shards never resume`),
    );
    assert.doesNotMatch(last, /then run the same command|continue with --resume/);

    // The server is back; the same command again is refused (exit 2), not pointed at --resume, the root untouched.
    await standin('target', '', Number(new URL(target.url).port));
    const before = snapshot(path.join(cwd, 'out'));
    const twice = await exitedWithin(typed(cwd, args), RUN_WITHIN_MS, 'the same command again did not end');
    assert.equal(twice.code, 2, twice.out);
    assert.match(twice.out, /Start a new run \(new --output-root\): this root's run is canonical and its target shards did not finish, so it never resumes/);
    assert.doesNotMatch(twice.out, /--resume/);
    const resumed = await exitedWithin(typed(cwd, [...args, '--resume']), RUN_WITHIN_MS, '--resume did not end');
    assert.equal(resumed.code, 2, resumed.out);
    assert.match(resumed.out, /canonical shards never resume — start a new run \(new --output-root\)/);
    assert.deepEqual(snapshot(path.join(cwd, 'out')), before, 'the refused commands left the root as it was');

    // What it advised: a new output root. That run ends done.
    const fresh = await exitedWithin(
      typed(cwd, ['avtime', 'run', '--bench-root', 'bench', '--output-root', 'out2', ...args.slice(6)]),
      RUN_WITHIN_MS,
      'the new run did not end',
    );
    assert.equal(fresh.code, 0, fresh.out);
  });

  it('--keep-going, the CLI killed (kill -9) mid-inference: the same command with --resume keeps every row and asks only the rest', async () => {
    const cwd = folder();
    const layout = new AvtimeRunLayout(path.join(cwd, 'out'), 'out');
    // While the hold file exists the target holds what it is asked: the kill lands with rows left to do.
    const hold = path.join(cwd, 'hold');
    const target = await standin('target', '', undefined, { FPSWEEP_STANDIN_LATENCY: 'a=0.5,b=0,shared=0', FPSWEEP_STANDIN_HOLD_FILE: hold });
    const judge = await standin('judge');
    const args = ['avtime', 'run', '--bench-root', 'bench', '--output-root', 'out', '--target-endpoints', target.url];
    args.push('--judge-endpoint', judge.url, '--target-batch', '1', '--keep-going');
    const cli = typed(cwd, args);
    await waitFor(
      () => completeIds(layout.rawPredictions(0)).length >= 2 || cli.child.exitCode !== null,
      RUN_WITHIN_MS,
      () => `two rows written:\n${cli.out()}`,
    );
    fs.writeFileSync(hold, '');
    cli.child.kill('SIGKILL');
    await cli.exited;
    const kept = completeIds(layout.rawPredictions(0));
    assert.ok(kept.length >= 2 && kept.length < 7, `killed with rows written and rows left (${kept.length} of 7)`);
    assert.ok(!fs.existsSync(layout.shardSummary(0)));

    fs.rmSync(hold);
    const again = await exitedWithin(typed(cwd, [...args, '--resume']), RUN_WITHIN_MS, 'the resumed run did not end');
    assert.equal(again.code, 0, again.out);
    const after = ids(layout.rawPredictions(0));
    assert.deepEqual(after.slice(0, kept.length), kept, 'the rows written before the kill are kept, in place');
    assert.deepEqual([...after].sort(), [
      'avtime_sample_001',
      'avtime_sample_002',
      'avtime_sample_003',
      'avtime_sample_004',
      'avtime_sample_005',
      'avtime_sample_006',
      'avtime_sample_007',
    ]);
    assert.ok(fs.existsSync(layout.summary), 'the run went on to its scores');
  });
});
