// Two hosts, each on its own copy of the sample package with its own stand-in server, run
// `--shard 1/2` and `--shard 2/2`; `merge` brings them into a third copy, which must hold what a
// single-host run on a fourth copy holds (same keys, same answers, every row with its raw record,
// failures once, report checks passing). Then: merging again adds nothing; a merge killed right
// after a raw record (before its row) is finished by the next; conflicting shards, a shard of
// another package and a row without its raw record are refused with nothing written.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as tar from 'tar';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS } from '../sample/fixture';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { InputError } from '../../../../../src/core/errors';
import { runSweep, type SweepResult } from '../../../../../src/core/protocols/fp/sweep/sweep';
import { defaultSweepDeps } from '../../../../../src/core/protocols/fp/sweep/adapters';
import { runOptionsSchema } from '../../../../../src/core/protocols/fp/sweep/runOptions';
import { readLiveStatus } from '../../../../../src/core/protocols/fp/sweep/liveStatus';
import { readStatus } from '../../../../../src/core/protocols/fp/status/status';
import { statusLine } from '../../../../../src/core/protocols/fp/status/formatStatus';
import { runIdentityFile } from '../../../../../src/core/runner/identity';
import { dryRun, type DryRunReport } from '../../../../../src/core/protocols/fp/dryrun/dryRun';
import { buildReport } from '../../../../../src/core/protocols/fp/report/buildReport';
import { mergeShards, type MergeResult } from '../../../../../src/core/protocols/fp/merge/merge';
import { main as cliMain } from '../../../../../src/cli/main';
import { captureOutput } from '../../../../helpers/captureOutput';
import { makeReturnsTarball } from '../../../../../src/core/protocols/fp/returns/tarball';
import { REPO, assertConsistent, artifactKey, readArtifacts, rowKeySet, startStandin, type Artifacts, type Standin } from '../sweep/helpers';

// A video shared by two benchmarks (MVBench, NExTQA), an item without a manifest row and a short video (MVBench),
// a missing folder and a stored-480 video with v_32 rows (LVBench).
const BENCH = ['MVBench', 'NExTQA', 'LVBench'];
/** Text only, the stored-480 reuse rule (v_32 added for it) and an fps condition (NA on short videos). */
const CONDS = ['v_blind', 'v_32_s448', 'v_fps0.5_s224'];

async function copyTo(dir: string, name: string): Promise<string> {
  const dest = path.join(dir, name);
  await copySamplePackage({ dest });
  return dest;
}

function run(pkg: string, endpoint: string, shard?: { index: number; count: number }) {
  return runSweep(
    runOptionsSchema.parse({ package: pkg, benchmarks: BENCH, conditions: CONDS, endpoints: [endpoint], decodeWorkers: 1, shard }),
    defaultSweepDeps,
  );
}

async function failureKeys(root: string): Promise<string[]> {
  const text = await fs.readFile(new PackageLayout(root).failuresLog, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .map((f) => `${artifactKey(f.benchmark, f.item_id, f.condition)} ${f.kind}`)
    .sort();
}

/** sha256 of every file under results/ and data/logs/ (what a merge may append to). */
async function resultsDigest(root: string): Promise<string> {
  const h = createHash('sha256');
  const walk = async (dir: string): Promise<void> => {
    for (const e of (await fs.readdir(dir, { withFileTypes: true }).catch(() => [])).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else h.update(`${path.relative(root, p)}\n`).update(await fs.readFile(p));
    }
  };
  await walk(path.join(root, 'results'));
  await walk(path.join(root, 'data', 'logs'));
  h.update(await fs.readFile(runIdentityFile(new PackageLayout(root))).catch(() => Buffer.alloc(0)));
  return h.digest('hex');
}

/** What a row says, without when and how fast. */
function answers(a: Artifacts): Map<string, string> {
  return new Map(a.rows.map((r) => [artifactKey(r.benchmark, r.item_id, r.condition), `${r.status} ${r.pred} ${r.correct} ${r.n_frames} ${r.prompt_tokens}`]));
}

/** Copy of a finished shard without its frame store (small), for the refusal cases. */
async function copyShard(src: string, dest: string): Promise<string> {
  await fs.cp(src, dest, { recursive: true, filter: (p) => !p.includes(`${path.sep}.fpsweep`) });
  return dest;
}

describe('merge: two shards on two servers equal one host', function () {
  this.timeout(60_000);
  let dir: string;
  let shard1: string, shard2: string, single: string, into: string;
  let servers: Standin[] = [];
  let origin: Set<string>;
  let dry: { whole: DryRunReport; parts: DryRunReport[] };
  let runs: SweepResult[];
  let merged: MergeResult;
  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS + 120_000);
    await getSamplePackage();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-merge-'));
    [shard1, shard2, single, into] = await Promise.all(['host1', 'host2', 'single', 'into'].map((n) => copyTo(dir, n)));
    origin = rowKeySet(await readArtifacts(new PackageLayout(into)));
    servers = await Promise.all([startStandin(), startStandin()]);
    const whole = await dryRun(single, { benchmarks: BENCH, conditions: CONDS });
    const parts = await Promise.all([1, 2].map((index) => dryRun(shard1, { benchmarks: BENCH, conditions: CONDS, shard: { index, count: 2 } })));
    dry = { whole, parts };
    // Two hosts at once, each with its own server; then one host alone on the same conditions.
    runs = [...(await Promise.all([run(shard1, servers[0].url, { index: 1, count: 2 }), run(shard2, servers[1].url, { index: 2, count: 2 })]))];
    runs.push(await run(single, servers[0].url));
    merged = await mergeShards({ into, shards: [shard1, shard2] });
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it("the shards' dry runs split the work: each counts its own, together the whole", () => {
    for (const k of ['todo', 'NA', 'reuse', 'done', 'no_video'] as const) {
      assert.equal(dry.parts[0].totals[k] + dry.parts[1].totals[k], dry.whole.totals[k], k);
    }
    assert.ok(dry.parts[0].totals.todo > 0 && dry.parts[1].totals.todo > 0, 'both shards have work');
  });

  it('each shard ran its own part: status and run identity name the shard, no video decoded on both hosts', async () => {
    const [r1, r2, rs] = runs;
    for (const r of runs) assert.equal(r.exitCode, 0, r.summary);
    assert.equal(r1.added.ok + r2.added.ok, rs.added.ok);
    assert.equal((await readStatus(new PackageLayout(shard1)))?.shard, '1/2');
    // With the worker gone, status recounts done rows from the CSV: the shard's own items only (the
    // copy also holds the origin's rows of the other shard's items).
    const live = await Promise.all([shard1, shard2, single].map((p) => readLiveStatus(new PackageLayout(p))));
    // Over the conditions asked (a v_32 cell exists only where a plan added v_32, which differs by shard).
    const sum = (i: number, k: 'done' | 'total') => live[i].status!.cells.filter((c) => CONDS.includes(c.condition)).reduce((a, c) => a + c[k], 0);
    assert.equal(sum(0, 'done') + sum(1, 'done'), sum(2, 'done'));
    assert.equal(sum(0, 'total') + sum(1, 'total'), sum(2, 'total'));
    assert.match(statusLine(live[0].status!), /^done \(shard 1\/2\): /);
    const id = JSON.parse((await fs.readFile(runIdentityFile(new PackageLayout(shard2)), 'utf8')).trim().split('\n').pop()!);
    assert.deepEqual(id.options.shard, { index: 2, count: 2 });
    const framesOf = async (p: string) => new Set(await fs.readdir(new PackageLayout(p).frameStoreDir).catch(() => [] as string[]));
    const [f1, f2] = await Promise.all([framesOf(shard1), framesOf(shard2)]);
    assert.ok(f1.size > 0 && f2.size > 0);
    assert.deepEqual(
      [...f1].filter((h) => f2.has(h)),
      [],
      'no video decoded on both hosts',
    );
    assert.deepEqual(
      merged.shards.map((x) => x.name),
      ['shard-1-of-2', 'shard-2-of-2'],
    );
    assert.equal(merged.shards[0].rows + merged.shards[1].rows, rs.added.ok + rs.added.NA + rs.added.reuse);
  });

  it('the merged package holds what the single host wrote: keys, answers, raw records, failures', async () => {
    const merged = await readArtifacts(new PackageLayout(into));
    const alone = await readArtifacts(new PackageLayout(single));
    assertConsistent(merged, origin);
    assert.deepEqual([...rowKeySet(merged)].sort(), [...rowKeySet(alone)].sort());
    assert.deepEqual(answers(merged), answers(alone));
    assert.deepEqual(await failureKeys(into), await failureKeys(single), 'each failure logged once, as on one host');
    assert.ok(
      (await failureKeys(into)).some((k) => k.endsWith(' no_video')),
      'items without a video are in one shard',
    );
    const shardLogs = await fs.readdir(path.join(into, 'logs', 'shards'));
    assert.deepEqual(shardLogs.sort(), ['shard-1-of-2', 'shard-2-of-2']);
    assert.ok((await fs.stat(path.join(into, 'logs', 'shards', 'shard-1-of-2', 'runner.log'))).size > 0);
  });

  it("the merged package passes the report's checks, counts the rows as the single host does, and packs for return", async () => {
    const noTodo = { todo: async () => [] };
    const [m, s] = await Promise.all([buildReport(into, noTodo), buildReport(single, noTodo)]);
    assert.deepEqual(
      m.checks.filter((c) => c.status === 'fail').map((c) => c.id),
      [],
    );
    assert.deepEqual(
      m.checks.map((c) => c.status),
      s.checks.map((c) => c.status),
    );
    assert.deepEqual(m.rowsAdded.mismatches, []);
    assert.equal(m.rowsAdded.total, s.rowsAdded.total);
    assert.deepEqual(
      m.rowsAdded.rows.map((r) => [r.condition, r.ok, r.NA, r.reuse]),
      s.rowsAdded.rows.map((r) => [r.condition, r.ok, r.NA, r.reuse]),
    );
    assert.equal(m.failures.total, s.failures.total);
    const [dm, ds] = await Promise.all([dryRun(into, { benchmarks: BENCH, conditions: CONDS }), dryRun(single, { benchmarks: BENCH, conditions: CONDS })]);
    assert.deepEqual(dm.totals, ds.totals);
    // `return` packs the merged results and the shards' logs.
    const t = await makeReturnsTarball(into, { hostname: 'merged' });
    const entries: string[] = [];
    await tar.t({ file: t.tarballPath, onReadEntry: (e) => void entries.push(e.path) });
    assert.ok(
      entries.some((e) => e.endsWith('results/conditions_results.csv')),
      entries.join(' '),
    );
    assert.ok(
      entries.some((e) => e.endsWith('logs/shards/shard-2-of-2/runner.log')),
      entries.join(' '),
    );
  });

  it('the merge of both shards is complete against their plan; status over the copies says so (issue 43)', async () => {
    assert.equal(merged.merged, true);
    assert.equal(merged.completeness.left, 0);
    assert.deepEqual(merged.completeness.shards, []);
    assert.equal(merged.completeness.count, 2);
    const st = await captureOutput(() => cliMain(['status', '--package', single, shard1, shard2]));
    assert.equal(st.code, 0, st.out + st.err);
    assert.match(st.out, /2 copies of .*\(2 shard\(s\), MVBench.*\): the plan is complete/);
  });

  it('refuses a merge that leaves units of the plan undone, naming each shard and its command; --allow-partial merges it (issue 43)', async () => {
    // A shard no copy ran: shard 2/2 missing altogether.
    const target = await copyTo(dir, 'partial-target');
    const before = await resultsDigest(target);
    const alone = await captureOutput(() => cliMain(['merge', '--into', target, shard1]));
    assert.equal(alone.code, 1, alone.out + alone.err);
    assert.match(alone.err, /merge refused, nothing written: the copies leave (\d+) unit\(s\) of their plan undone/);
    assert.match(
      alone.err,
      /shard 2\/2 \(no copy given ran it\): \d+ unit\(s\) still to do .*`cp -a .* COPY && fpsweep run --package COPY --shard 2\/2 --bench /,
    );
    assert.match(alone.err, /--allow-partial/);
    assert.equal(await resultsDigest(target), before, 'nothing written');
    // A task cut short: shard 2's copy without what it wrote for one condition (rows and raw records alike).
    const short = await copyShard(shard2, path.join(dir, 'short'));
    const layout = new PackageLayout(short);
    const cond = CONDS.find((c) => c !== 'v_blind')!;
    const csv = (await fs.readFile(layout.resultsCsv, 'utf8')).split('\n');
    const ci = csv[0].split(',').indexOf('condition');
    const cut = csv.filter((l, i) => i === 0 || !l || l.split(',')[ci] !== cond || origin.has(artifactKey(l.split(',')[0], l.split(',')[1], cond)));
    const removed = csv.length - cut.length;
    assert.ok(removed > 0, `shard 2 wrote rows of ${cond}`);
    await fs.writeFile(layout.resultsCsv, cut.join('\n'));
    await fs.rm(path.join(layout.resultsDir, 'p1_raw', cond), { recursive: true, force: true });
    const res = await captureOutput(() => cliMain(['status', '--package', target, shard1, short]));
    assert.equal(res.code, 1, res.out);
    assert.match(res.out, new RegExp(`shard 2/2 \\(${short}\\): ${removed} unit\\(s\\) still to do .*\`fpsweep run --package ${short} --shard 2/2 --bench`));
    const refused = await captureOutput(() => cliMain(['merge', '--into', target, shard1, short]));
    assert.equal(refused.code, 1, refused.out + refused.err);
    assert.match(refused.err, new RegExp(`leave ${removed} unit\\(s\\) of their plan undone`));
    assert.equal(await resultsDigest(target), before, 'nothing written');
    const partial = await captureOutput(() => cliMain(['merge', '--into', target, '--allow-partial', shard1, short]));
    assert.equal(partial.code, 0, partial.out + partial.err);
    assert.match(partial.err, new RegExp(`partial merge \\(--allow-partial\\): ${removed} unit\\(s\\) of the plan left undone`));
    assert.match(partial.out, new RegExp(`${removed} unit\\(s\\) left`));
    assert.notEqual(await resultsDigest(target), before);
  });

  it('merging the same shards again adds nothing', async () => {
    const before = await resultsDigest(into);
    const res = await mergeShards({ into, shards: [shard2, shard1] });
    assert.deepEqual(
      res.shards.map((s) => [s.rows, s.rawRecords, s.failures, s.timing, s.runs]),
      [
        [0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0],
      ],
    );
    assert.equal(await resultsDigest(into), before);
  });

  it('a merge killed right after a raw record, before its row, is finished by the next: no row lost or doubled', async () => {
    const target = await copyTo(dir, 'crash');
    const tsx = pathToFileURL(path.join(REPO, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
    const child = spawnSync(process.execPath, ['--import', tsx, path.join(REPO, 'src', 'cli', 'main.ts'), 'merge', '--into', target, shard1, shard2], {
      env: { ...process.env, FPSWEEP_MERGE_EXIT_AFTER_RAW: '3' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(child.status, 75, child.stderr);
    // The deterministic crash point: three raw records written, only two of their rows.
    const cut = await readArtifacts(new PackageLayout(target));
    const newRaw = cut.raws.filter((r) => !origin.has(artifactKey(r.benchmark, r.item_id, r.condition)));
    const newRows = cut.rows.filter((r) => !origin.has(artifactKey(r.benchmark, r.item_id, r.condition)));
    assert.equal(newRaw.length, 3);
    assert.equal(newRows.length, 2);
    const res = await mergeShards({ into: target, shards: [shard1, shard2] });
    assert.equal(
      res.shards[0].rowsCompleted + res.shards[1].rowsCompleted + res.notes.filter((n) => n.startsWith('CSV row completed')).length,
      1,
      'the raw record without its row is completed, not written again',
    );
    const done = await readArtifacts(new PackageLayout(target));
    assertConsistent(done, origin);
    assert.deepEqual([...rowKeySet(done)].sort(), [...rowKeySet(await readArtifacts(new PackageLayout(into)))].sort());
    assert.deepEqual(await failureKeys(target), await failureKeys(into));
  });

  it('refuses shards that disagree on a key, naming both rows, and writes nothing', async () => {
    const target = await copyTo(dir, 'conflict-target');
    const other = await copyShard(shard1, path.join(dir, 'conflict-copy'));
    // Change one answer of the copy, row and raw record alike (a copy that is consistent in itself).
    const layout = new PackageLayout(other);
    const a = await readArtifacts(layout);
    const victim = a.raws.find((r) => r.status === 'ok' && !origin.has(artifactKey(r.benchmark, r.item_id, r.condition)))!;
    const rawFile = layout.rawFile(victim.condition, victim.benchmark);
    const lines = (await fs.readFile(rawFile, 'utf8')).split('\n');
    const li = lines.findIndex((l) => l && JSON.parse(l).item_id === victim.item_id);
    const changedPred = victim.pred === 'A' ? 'B' : 'A';
    lines[li] = JSON.stringify({ ...victim, pred: changedPred });
    await fs.writeFile(rawFile, lines.join('\n'));
    const csvLines = (await fs.readFile(layout.resultsCsv, 'utf8')).split('\n');
    const ci = csvLines.findIndex((l) => l.startsWith(`${victim.benchmark},${victim.item_id},${victim.condition},`));
    const cells = csvLines[ci].split(',');
    const header = csvLines[0].split(',');
    cells[header.indexOf('pred')] = changedPred;
    csvLines[ci] = cells.join(',');
    await fs.writeFile(layout.resultsCsv, csvLines.join('\n'));
    const before = await resultsDigest(target);
    await assert.rejects(mergeShards({ into: target, shards: [shard1, other] }), (e: Error) => {
      assert.ok(e instanceof InputError, String(e));
      assert.match(e.message, /nothing written/);
      assert.ok(e.message.includes(`${new PackageLayout(shard1).resultsCsv}:`) && e.message.includes(`${layout.resultsCsv}:${ci + 1}`), e.message);
      return true;
    });
    assert.equal(await resultsDigest(target), before);
    // And against the package itself, once the first shard is in.
    await assert.rejects(
      mergeShards({ into, shards: [other] }),
      (e: Error) => e.message.includes(`${new PackageLayout(into).resultsCsv}:`) && e.message.includes(`${layout.resultsCsv}:${ci + 1}`),
    );
  });

  it('refuses a shard of another package, and a row without its raw record', async () => {
    const target = await copyTo(dir, 'refuse-target');
    const before = await resultsDigest(target);
    const foreign = await copyShard(shard2, path.join(dir, 'foreign'));
    await fs.appendFile(
      new PackageLayout(foreign).samplesFile('MVBench'),
      JSON.stringify({ item_id: 'MVBench_extra', benchmark: 'MVBench', video_id: 'nowhere', question: 'q?', options: ['a', 'b'], answer: 'A' }) + '\n',
    );
    await assert.rejects(
      mergeShards({ into: target, shards: [shard1, foreign] }),
      (e: Error) => e instanceof InputError && /not made from the same package/.test(e.message) && e.message.includes('items/samples/MVBench.jsonl'),
    );

    const rawless = await copyShard(shard2, path.join(dir, 'rawless'));
    const layout = new PackageLayout(rawless);
    const a = await readArtifacts(layout);
    const victim = a.raws.find((r) => !origin.has(artifactKey(r.benchmark, r.item_id, r.condition)))!;
    const rawFile = layout.rawFile(victim.condition, victim.benchmark);
    const kept = (await fs.readFile(rawFile, 'utf8')).split('\n').filter((l) => !l || JSON.parse(l).item_id !== victim.item_id);
    await fs.writeFile(rawFile, kept.join('\n'));
    await assert.rejects(
      mergeShards({ into: target, shards: [rawless] }),
      (e: Error) => e instanceof InputError && /a row without its raw record/.test(e.message) && e.message.includes(layout.resultsCsv),
    );
    assert.equal(await resultsDigest(target), before);
  });
});
