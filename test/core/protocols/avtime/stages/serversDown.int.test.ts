// An AVTime run on given endpoints whose server dies (the stand-in's crashAfter: it exits, its port refuses): nothing
// of ours restarts a server we did not launch, so the run stops on its own once it has been unreachable for
// --fail-down seconds — exit 1 naming the URL, its words and what to do — and writes none of its requests off as
// failures (the judge's, --keep-going's target rows): they stay to do, and --resume takes them up once the server is
// back on its address. Every wait is for a state (a server's exit, the run's end), bounded by the mocha timeout.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeAvtimeSample } from '../../../../../src/core/protocols/avtime/sample';
import { runAvtime, type AvtimeHooks } from '../../../../../src/core/protocols/avtime/stages/run';
import type { AvtimeOptionsInput } from '../../../../../src/core/protocols/avtime/stages/options';
import { AvtimeRunLayout } from '../../../../../src/core/protocols/avtime/stages/layout';
import { buildStandin } from '../../../serving/helpers';
import { startStandin, type Standin } from '../../fp/sweep/helpers';
import { copyBench, tmpDir } from './fixtures';

const FAST = 'a=0,b=0,shared=0';

/** Lines of a JSONL file (none when it is absent). */
function jsonl(file: string): Record<string, unknown>[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('avtime run: its only given server dies (the unreachable rule, --fail-down)', function () {
  this.timeout(180_000);
  let sample: string;
  let standins: Standin[] = [];

  before(async function () {
    this.timeout(120_000);
    await buildStandin();
    sample = path.join(tmpDir('down'), 'bench');
    await makeAvtimeSample({ out: sample });
  });
  afterEach(async () => {
    await Promise.all(standins.map((s) => s.stop()));
    standins = [];
  });

  /** A fresh copy of the sample bench (runs write target_inputs.jsonl into the bench root; inventory paths are absolute). */
  const bench = (): string => copyBench(sample, 'down');

  async function standin(role: 'target' | 'judge', faults: Record<string, string> = {}, port?: number): Promise<Standin> {
    const s = await startStandin({
      port,
      mediaPath: role === 'target' ? '/' : undefined,
      env: { FPSWEEP_STANDIN_ROLE: role, FPSWEEP_STANDIN_LATENCY: FAST, FPSWEEP_STANDIN_TARGET: '', FPSWEEP_STANDIN_JUDGE: '', ...faults },
    });
    standins.push(s);
    return s;
  }

  function run(opts: Partial<AvtimeOptionsInput> & { benchRoot: string }) {
    const lines: string[] = [];
    const hooks: AvtimeHooks = { log: (l) => void lines.push(l), clientOptions: { maxRetries: 1, baseDelayMs: 20, maxDelayMs: 50 } };
    return runAvtime('run', { failDownS: 1, ...opts }, hooks).then((res) => ({ ...res, log: lines.join('\n') }));
  }

  /** The stop's words: the rule, the URL with its words, what to do and how to resume. */
  function assertStopWords(res: { exitCode: number; line: string; log: string }, url: string): void {
    assert.equal(res.exitCode, 1, res.log);
    assert.match(res.line, /stopped on its own: the only server unreachable for 1 s \(the rule: --fail-down 1\)/, res.log);
    assert.match(res.line, new RegExp(`the server said: ECONN(REFUSED|RESET)[^;]*\\(${url}\\)`), 'its words and its URL');
    assert.match(res.line, new RegExp(`do: restart the server at ${url}: .*then run the same command with --resume \\(run id r\\): it resumes`));
    assert.match(res.log, new RegExp(`server 0 \\(${url}\\) unreachable: ECONN`), 'the clock start is logged');
  }

  it('the judge dies in pass 1: exit 1 naming its URL, no request written off, no pass 2; --resume finishes with it back', async () => {
    const root = bench();
    const out = path.join(tmpDir('down'), 'r');
    const layout = new AvtimeRunLayout(out, 'r');
    const target = await standin('target');
    // The judge answers 3 requests, then dies at the 4th (exit 1): its port refuses from then on.
    const judge = await standin('judge', { FPSWEEP_STANDIN_JUDGE: 'crashAfter=3' });
    const died = new Promise<void>((resolve) => judge.child.once('exit', () => resolve()));
    const res = await run({ benchRoot: root, outputRoot: out, runId: 'r', targetEndpoints: [target.url], judgeEndpoint: judge.url });
    await died;
    assertStopWords(res, judge.url);
    // No judge request was written off for a server that gave no answer, and the retry pass never asked a dead server.
    assert.deepEqual(
      jsonl(layout.semanticFailures).map((f) => f.reason),
      [],
      'no failure line',
    );
    assert.equal(jsonl(layout.semanticRequests).filter((r) => r.pass === 2).length, 0, 'no retry pass');
    const answered = jsonl(layout.semanticResponses).length;
    // crashAfter=3 cuts the requests in flight when the 4th arrives: on a busy host all 3 may still be in flight then
    // (0 answered), so the count is not fixed; whatever was answered is kept and reused (below).
    assert.ok(answered <= 3, `at most the judge's 3 answers before it died (${answered})`);
    assert.ok(!fs.existsSync(layout.semanticReport), 'the judge stage is not complete');

    // The judge is back on its address (as the user would restart it): --resume asks only what is left, to the end.
    await standin('judge', {}, Number(new URL(judge.url).port));
    const again = await run({ benchRoot: root, outputRoot: out, runId: 'r', resume: true, targetEndpoints: [target.url], judgeEndpoint: judge.url });
    assert.equal(again.exitCode, 0, again.log);
    const report = JSON.parse(fs.readFileSync(layout.semanticReport, 'utf8')) as { reused: number; complete: boolean };
    assert.equal(report.complete, true);
    assert.equal(report.reused, answered, 'the answers kept before the stop are reused');
  });

  it('--keep-going, the target dies: exit 1 naming its URL, no row written off; --resume --keep-going finishes with it back', async () => {
    const root = bench();
    const out = path.join(tmpDir('down'), 'r');
    const layout = new AvtimeRunLayout(out, 'r');
    // The target answers the pre-flight and 2 rows, then dies at the 4th request.
    const target = await standin('target', { FPSWEEP_STANDIN_FAULTS: 'crashAfter=3' });
    const judge = await standin('judge');
    const died = new Promise<void>((resolve) => target.child.once('exit', () => resolve()));
    const given = { benchRoot: root, outputRoot: out, runId: 'r', keepGoing: true, targetBatch: 1, targetEndpoints: [target.url], judgeEndpoint: judge.url };
    const res = await run(given);
    await died;
    assertStopWords(res, target.url);
    assert.doesNotMatch(res.log, /failed \(server_down\)/, 'no target row written off');
    const written = jsonl(layout.rawPredictions(0)).length;
    // As above: the rows in flight when the 4th request arrives are cut, so how many were answered first varies.
    assert.ok(written < 7, `the rows answered before it died are kept (${written} of 7)`);
    assert.ok(!fs.existsSync(layout.shardSummary(0)), 'the shard is not complete');

    await standin('target', {}, Number(new URL(target.url).port));
    const again = await run({ ...given, resume: true });
    assert.equal(again.exitCode, 0, again.log);
    const rows = jsonl(layout.rawPredictions(0)).map((r) => r.id as string);
    assert.equal(rows.length, 7, 'every row once');
    assert.equal(new Set(rows).size, 7);
  });
});
