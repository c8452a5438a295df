// SPEC-AVTIME §2–§8's fail-closed rules not covered elsewhere (inputs.test.ts, infer.test.ts, run.test.ts,
// cli.test.ts, judge.test.ts, scores.test.ts have the rest): each refusal is exit 2 with its message, and
// leaves the bench root and the output root byte for byte as they were (a new root is never made).
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runAvtime, type AvtimeHooks } from '../../../../../src/core/protocols/avtime/stages/run';
import type { AvtimeOptionsInput } from '../../../../../src/core/protocols/avtime/stages/options';
import { AvtimeRunLayout } from '../../../../../src/core/protocols/avtime/stages/layout';
import { tmpDir } from './fixtures';
import { makeBench, judgeStub, targetStub, TARGET_ANSWERS, videoOf } from './benchFixture';
import { startStub, type Stub } from './httpStub';

const hooks: AvtimeHooks = { log: () => undefined, clientOptions: { maxRetries: 0 } };

function hashTree(dir: string): string[] {
  if (!fs.existsSync(dir)) return ['<absent>'];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        out.push(`${path.relative(dir, p)}/`);
        walk(p);
      } else out.push(`${path.relative(dir, p)} ${createHash('sha256').update(fs.readFileSync(p)).digest('hex')} ${fs.statSync(p).mtimeMs}`);
    }
  };
  walk(dir);
  return out;
}

describe('avtime: fail-closed rules (exit 2, the message, nothing written)', function () {
  this.timeout(60_000);
  const stubs: Stub[] = [];
  afterEach(async () => {
    await Promise.all(stubs.splice(0).map((s) => s.close()));
  });
  async function endpoints() {
    const s = [await targetStub(), await targetStub(), await judgeStub()];
    stubs.push(...s);
    return { targetEndpoints: [s[0].url, s[1].url], judgeEndpoint: s[2].url };
  }

  /** Runs a verb that must be refused; asserts exit 2, the message, and that neither root changed at all (status file, lock and log included). */
  async function refused(
    verb: 'run' | 'judge' | 'score' | 'normalize',
    root: string,
    out: string,
    opts: Partial<AvtimeOptionsInput>,
    message: RegExp,
  ): Promise<void> {
    const tree = hashTree;
    const before = [tree(root), tree(out)];
    const res = await runAvtime(verb, { benchRoot: root, outputRoot: out, runId: path.basename(out), ...opts }, hooks);
    assert.equal(res.exitCode, 2, res.line);
    assert.match(res.line, message);
    assert.deepEqual([tree(root), tree(out)], before, 'nothing written');
  }

  it('§3 topology: a GPU group that is not TP GPUs (target and judge), checked before the root is made', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('fc'), 'r1');
    await refused(
      'run',
      root,
      out,
      { targetModel: 'Qwen/Qwen3-Omni', judgeModel: 'Qwen/Qwen3.6-27B', targetGpus: [[0, 1], [2]], targetTp: 2 },
      /--target-gpus group 2 has 1 GPU\(s\) but --target-tp is 2: a group holds exactly TP GPUs/,
    );
    await refused(
      'run',
      root,
      out,
      { targetModel: 'Qwen/Qwen3-Omni', judgeModel: 'Qwen/Qwen3.6-27B', targetGpus: [[0], [1]], targetTp: 1, judgeGpus: [[0, 1]], judgeTp: 1 },
      /--judge-gpus group 0,1 has 2 GPU\(s\) but --judge-tp is 1/,
    );
  });

  it('§3/§6 servers: no target model and no target endpoints; no judge model and no judge endpoint', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('fc'), 'r1');
    await refused('run', root, out, { judgeModel: 'j' }, /TARGET_MODEL \(--target-model\) or --target-endpoints is required/);
    await refused('run', root, out, { targetModel: 't' }, /JUDGE_MODEL \(--judge-model\) or --judge-endpoint is required/);
  });

  it('§1/§5 the bench root: no such folder, no manifest, a duplicate query_id, a judge template override without its placeholders', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('fc'), 'r1');
    const eps = await endpoints();
    await refused('run', path.join(root, 'nope'), out, eps, /--bench-root .*nope does not exist/);
    const manifest = path.join(root, 'benchmark_reference_manifest.jsonl');
    const text = fs.readFileSync(manifest, 'utf8');
    fs.renameSync(manifest, manifest + '.away');
    await refused('run', root, out, eps, /benchmark_reference_manifest\.jsonl does not exist \(the bench root's private queries\)/);
    fs.renameSync(manifest + '.away', manifest);
    fs.writeFileSync(manifest, text + text.split('\n')[0] + '\n');
    await refused('run', root, out, eps, /benchmark_reference_manifest\.jsonl:15: duplicate query_id 't2e-A-0' \(first on line 1\)/);
    fs.writeFileSync(manifest, text);
    fs.writeFileSync(path.join(root, 'prompts', 'judge_t2e_scalar.txt'), 'Rate it.\n');
    await refused('run', root, out, eps, /prompts\/judge_t2e_scalar\.txt: /);
  });

  const continuingRules =
    '§8 continuing: --resume without a run id or root; a stage before the one it needs; target inputs gone; a new run into its root; ' +
    'a resume on another bench, with another shard count or with changed bench files';
  it(continuingRules, async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('fc'), 'r1');
    const eps = await endpoints();
    const noRoot = await runAvtime('run', { benchRoot: root, resume: true, ...eps }, hooks);
    assert.equal(noRoot.exitCode, 2);
    assert.match(noRoot.line, /--run-id \(or --output-root\) is required to continue a run/);
    // A non-canonical run whose shard 1 failed: its target inputs and root exist.
    let fail = true;
    const t = await startStub((b) => (fail && videoOf(b) === 'vid_001' ? { status: 400, error: 'flaky' } : { text: TARGET_ANSWERS[videoOf(b)] }));
    stubs.push(t);
    const first = await runAvtime(
      'run',
      { benchRoot: root, outputRoot: out, runId: 'r1', keepGoing: true, targetEndpoints: [t.url, t.url], judgeEndpoint: eps.judgeEndpoint },
      hooks,
    );
    assert.equal(first.exitCode, 1, first.line);
    fail = false;
    await refused('score', root, out, {}, /infer has not completed: shard0 had 1 failed row\(s\); run `fpsweep avtime infer` \(or `run --resume`\) first/);
    await refused('judge', root, out, eps, /infer has not completed/);
    await refused('run', root, out, { keepGoing: true, targetEndpoints: [t.url, t.url], judgeEndpoint: eps.judgeEndpoint }, /already exists and is not empty/);
    const again = { resume: true, keepGoing: true, targetEndpoints: [t.url, t.url], judgeEndpoint: eps.judgeEndpoint };
    // A resume reads the run's own bench: another one named is refused, never read (nor hashed into run_config).
    const other = makeBench().root;
    const otherBefore = hashTree(other);
    await refused('run', root, out, { ...again, benchRoot: other }, /this run's bench root is .*; --bench-root .* is another/);
    assert.deepEqual(hashTree(other), otherBefore);
    // Rows are assigned to shards by their count: a resume with another count would re-ask rows elsewhere.
    await refused(
      'run',
      root,
      out,
      { ...again, targetEndpoints: [t.url, t.url, t.url] },
      /this run has 2 target shard\(s\); .* gives 3: a resume keeps the run's shard count/,
    );
    const testFile = path.join(root, 'test.jsonl');
    const testBytes = fs.readFileSync(testFile);
    fs.appendFileSync(testFile, '\n');
    await refused('run', root, out, again, /the bench root's files changed since this run started \(test\)/);
    fs.writeFileSync(testFile, testBytes);
    const inputs = path.join(root, 'target_inputs.jsonl');
    fs.renameSync(inputs, inputs + '.away');
    await refused(
      'run',
      root,
      out,
      { resume: true, keepGoing: true, targetEndpoints: [t.url, t.url], judgeEndpoint: eps.judgeEndpoint },
      /target_inputs\.jsonl is gone: this run's target inputs must stay where they were/,
    );
    fs.renameSync(inputs + '.away', inputs);
    const done = await runAvtime(
      'run',
      { benchRoot: root, outputRoot: out, runId: 'r1', resume: true, keepGoing: true, targetEndpoints: [t.url, t.url], judgeEndpoint: eps.judgeEndpoint },
      hooks,
    );
    assert.equal(done.exitCode, 0, done.line);
    assert.ok(fs.existsSync(new AvtimeRunLayout(out, 'r1').summary));
  });
  it('§8 a stage verb before its stage is complete, a canonical run resumed: refused before the lock, the status file untouched', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('fc'), 'r1');
    const eps = await endpoints();
    const infer = await runAvtime('infer', { benchRoot: root, outputRoot: out, runId: 'r1', ...eps }, hooks);
    assert.equal(infer.exitCode, 0, infer.line);
    assert.ok(fs.existsSync(path.join(out, '.fpsweep', 'avtime-status.json')), 'the run has a status file a refusal could rewrite');
    await refused('judge', root, out, eps, /normalization has not run in .*: run `fpsweep avtime normalize` first/);
    await refused('score', root, out, {}, /normalization has not run/);
    const normalize = await runAvtime('normalize', { benchRoot: root, outputRoot: out, runId: 'r1' }, hooks);
    assert.equal(normalize.exitCode, 0, normalize.line);
    await refused('score', root, out, {}, /the judge has not completed in .*: run `fpsweep avtime judge` first/);
    // A canonical run whose shard 1 failed: --resume is refused (canonical shards never resume).
    // It passes the pre-flight (return_token_ids), then refuses its shard's input.
    const bad = await startStub((b) => (b.return_token_ids ? { text: '' } : { status: 400, error: 'cannot open video' }));
    stubs.push(bad);
    const out2 = path.join(path.dirname(out), 'r2');
    const failed = await runAvtime(
      'run',
      { benchRoot: root, outputRoot: out2, runId: 'r2', ...eps, targetEndpoints: [eps.targetEndpoints[0], bad.url] },
      hooks,
    );
    assert.equal(failed.exitCode, 1, failed.line);
    await refused('run', root, out2, { resume: true, ...eps }, /canonical shards never resume — start a new run/);
  });
});
