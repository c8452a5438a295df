// Reruns are a feature (issue 41): every verb, run twice with the same arguments as a person types them (a temp
// cwd, relative paths), does the second time what the `Rerun:` line of its --help says. The form (rerunCases.ts)
// says what is checked: `refuses` exit 2 with every file as it was; `done` exit 0 with the words the rule quotes and
// every file as it was; `reads` the same exit and no file written by either run (caches the first makes aside);
// `resumes` the same exit, no file lost, nothing doubled (each verb's own count); `writes` the same exit and one
// output, made again. Servers are the stand-ins (VLLM_BIN=bin/fake-vllm, an HTTP stub for dvc).
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Captured } from '../helpers/captureOutput';
import { typed } from '../helpers/typed';
import { copySamplePackage, SAMPLE_TIMEOUT_MS } from '../core/protocols/fp/sample/fixture';
import { FAKE_VLLM, freePortRange } from '../core/protocols/fp/sweep/helpers';
import { makeCorpus } from '../core/protocols/avtime/data/corpus';
import { startStub, type Stub } from '../core/protocols/avtime/stages/httpStub';
import { cliDocEntries } from '../../scripts/genCliDoc';
import { RERUN_FORM_OF, RERUN_TESTED_ELSEWHERE, rerunRuleOf, type RerunForm } from './rerunCases';
import { DEMO_GPU_LAYOUT } from '../helpers/avtimeArgs';

/** Every file under `dir` with its sha256 (folders end in '/'), but for paths `skip` matches. */
function contents(dir: string, skip?: RegExp): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (skip?.test(r)) continue;
      if (e.isDirectory()) {
        out.set(`${r}/`, '');
        walk(path.join(d, e.name), r);
      } else
        out.set(
          r,
          e.isFile()
            ? createHash('sha256')
                .update(fs.readFileSync(path.join(d, e.name)))
                .digest('hex')
            : 'other',
        );
    }
  };
  walk(dir, '');
  return out;
}

function changes(a: Map<string, string>, b: Map<string, string>): string[] {
  const out: string[] = [];
  for (const k of a.keys()) if (!b.has(k)) out.push(`lost ${k}`);
  for (const k of b.keys()) if (!a.has(k)) out.push(`made ${k}`);
  for (const [k, v] of a) if (b.has(k) && b.get(k) !== v) out.push(`changed ${k}`);
  return out.sort();
}

const lines = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);

interface Twice {
  first: Captured;
  second: Captured;
}

interface Case {
  /** Words of the verb as docs/CLI.md names it (rerunCases.ts). */
  verb: string;
  args: string[];
  /** Paths the checks of files leave aside (logs each run appends to, a cache the first run makes). */
  volatile?: RegExp;
  /** The first run's exit (default 0). */
  code?: number;
  /** The verb's own count of "nothing lost or doubled". */
  check?(t: Twice, cwd: string): void;
}

const ran = new Set<string>();
const tmp = (name: string) => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `rerun-${name}-`)));
const noStack = (r: Captured) => assert.doesNotMatch(r.err, /\n\s+at .+:\d+:\d+\)?\n/, `a stack trace:\n${r.err}`);

/** Runs `c` twice in `cwd` and checks the second run against the verb's rule. */
async function twice(cwd: string, c: Case): Promise<void> {
  const form: RerunForm = RERUN_FORM_OF[c.verb];
  assert.ok(form, `${c.verb} is not in rerunCases.ts`);
  const entry = cliDocEntries().find((e) => e.verb === c.verb);
  assert.ok(entry, `${c.verb} is not a verb of the registry`);
  const help = await typed(cwd, entry.helpArgs);
  const rule = rerunRuleOf(help.out)!;
  assert.ok(rule, `no Rerun: line in ${c.verb} --help`);
  const before = contents(cwd, c.volatile);
  const first = await typed(cwd, c.args);
  assert.equal(first.code, c.code ?? 0, `first ${c.args.join(' ')}:\n${first.out.slice(-2000)}\n${first.err.slice(-2000)}`);
  const after1 = contents(cwd, c.volatile);
  const second = await typed(cwd, c.args);
  const after2 = contents(cwd, c.volatile);
  const said = `${second.out}\n${second.err}`;
  noStack(second);
  const quoted = [...rule.matchAll(/"([^"…]+)"/g)].map((m) => m[1]);
  switch (form) {
    case 'refuses':
      assert.equal(second.code, 2, `${c.verb} rule: ${rule}\nsecond run:\n${said}`);
      assert.match(second.err, /already|not empty|immutable/, second.err);
      assert.deepEqual(changes(after1, after2), [], 'a refused rerun changes nothing');
      break;
    case 'done':
      assert.equal(second.code, 0, said);
      for (const q of quoted) assert.ok(said.includes(q), `${c.verb}: its rule says "${q}"; the second run said:\n${said}`);
      assert.deepEqual(changes(after1, after2), [], 'a rerun that is done changes nothing');
      break;
    case 'reads':
      assert.equal(second.code, first.code, said);
      assert.deepEqual(changes(before, after1), [], 'reads only: the first run wrote nothing');
      assert.deepEqual(changes(after1, after2), [], 'reads only: the second run wrote nothing');
      break;
    case 'resumes':
      assert.equal(second.code, first.code, said);
      assert.deepEqual(
        changes(after1, after2).filter((x) => x.startsWith('lost ')),
        [],
        'a rerun that resumes loses nothing',
      );
      break;
    case 'writes':
      assert.equal(second.code, first.code, said);
      assert.deepEqual(
        changes(after1, after2).filter((x) => !x.startsWith('changed ')),
        [],
        'written again in place: nothing lost, nothing new',
      );
      break;
  }
  c.check?.({ first, second }, cwd);
  ran.add(c.verb);
}

describe('reruns as typed: each verb twice with the same arguments does what its help says', function () {
  this.timeout(600_000);
  const saved = { VLLM_BIN: process.env.VLLM_BIN, FPSWEEP_STANDIN_LATENCY: process.env.FPSWEEP_STANDIN_LATENCY };
  before(() => {
    process.env.VLLM_BIN = FAKE_VLLM;
    process.env.FPSWEEP_STANDIN_LATENCY = 'a=0.001';
  });
  after(() => {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  });

  describe('Frames × Pixels: a run package', () => {
    let cwd: string;
    before(async function () {
      this.timeout(SAMPLE_TIMEOUT_MS);
      cwd = tmp('fp');
      await copySamplePackage({ dest: path.join(cwd, 'pkg'), extract: false });
      await copySamplePackage({ dest: path.join(cwd, 'base') });
      await copySamplePackage({ dest: path.join(cwd, 'host1') });
    });
    after(() => fs.rmSync(cwd, { recursive: true, force: true }));
    // Each run appends its identity and logs; a report or a status reads the package as it is then.
    const logs = /^(pkg|base|host1)\/(logs|\.fpsweep)(\/|$)/;

    it('prepare: says it is done', () => twice(cwd, { verb: 'prepare', args: ['prepare', '--package', 'pkg'], volatile: logs }));
    it('doctor: reads only', () => twice(cwd, { verb: 'doctor', args: ['doctor', '--package', 'pkg', '--json'], code: 1 }));
    it('dry-run: reads only', () => twice(cwd, { verb: 'dry-run', args: ['dry-run', '--package', 'pkg', '--bench', 'MVBench'] }));
    it('run: resumes, no row twice', async () => {
      const port = String(await freePortRange(1));
      const csv = (cwd: string) => lines(path.join(cwd, 'pkg', 'results', 'conditions_results.csv'));
      await twice(cwd, {
        verb: 'run',
        args: ['run', '--package', 'pkg', '--bench', 'MVBench', '--conds', 'v_blind,v_1', '--ngpu', '1', '--base-port', port],
        volatile: logs,
        check: (t) => {
          assert.match(t.first.out + t.first.err, /done: [1-9]\d* rows added/);
          assert.match(t.second.out + t.second.err, /done: 0 rows added/);
          const rows = csv(cwd);
          assert.equal(new Set(rows).size, rows.length, 'a row written twice');
        },
      });
    });
    it('status: reads only', () => twice(cwd, { verb: 'status', args: ['status', '--package', 'pkg'] }));
    it('stop: says no worker is running', () => twice(cwd, { verb: 'stop', args: ['stop', '--package', 'pkg'] }));
    it('report: writes the report again', () =>
      twice(cwd, {
        verb: 'report',
        args: ['report', '--package', 'pkg'],
        check: () => assert.ok(fs.existsSync(path.join(cwd, 'pkg', '.fpsweep', 'reports', 'report.md'))),
      }));
    it('findings: reads only', () => twice(cwd, { verb: 'findings', args: ['findings', '--package', 'pkg'] }));
    it('inspect: reads only (its frames made again are kept aside)', () => {
      const item = JSON.parse(lines(path.join(cwd, 'pkg', 'items', 'samples', 'MVBench.jsonl'))[0]).item_id as string;
      return twice(cwd, {
        verb: 'inspect',
        args: ['inspect', '--package', 'pkg', '--benchmark', 'MVBench', '--item', item, '--conditions', 'v_1'],
        volatile: /^pkg\/\.fpsweep\/inspect-frames(\/|$)/,
      });
    });
    it("return: writes the day's tarball again, its sha256 file matching", () =>
      twice(cwd, {
        verb: 'return',
        args: ['return', '--package', 'pkg'],
        volatile: /^pkg\/logs(\/|$)/,
        check: () => {
          const tars = fs.readdirSync(path.join(cwd, 'pkg')).filter((f) => /^fp_returns_.*\.tar\.gz$/.test(f));
          assert.equal(tars.length, 1, tars.join(', '));
          const sum = createHash('sha256')
            .update(fs.readFileSync(path.join(cwd, 'pkg', tars[0])))
            .digest('hex');
          assert.equal(fs.readFileSync(path.join(cwd, 'pkg', 'fp_returns.sha256'), 'utf8').split(/\s+/)[0], sum);
        },
      }));
    it('merge: resumes; a shard merged before adds nothing', async () => {
      const port = String(await freePortRange(1));
      const run = await typed(cwd, ['run', '--package', 'host1', '--shard', '1/2', '--bench', 'MVBench', '--conds', 'v_1', '--ngpu', '1', '--base-port', port]);
      assert.equal(run.code, 0, run.err);
      const csv = () => lines(path.join(cwd, 'base', 'results', 'conditions_results.csv'));
      const had = csv().length;
      await twice(cwd, {
        verb: 'merge',
        args: ['merge', '--into', 'base', '--allow-partial', 'host1'],
        volatile: logs,
        check: () => {
          const rows = csv();
          assert.ok(rows.length > had, 'the first merge added rows');
          assert.equal(new Set(rows).size, rows.length, 'a row merged twice');
        },
      });
    });
    it('sample: refuses a folder that holds a package', () => twice(cwd, { verb: 'sample', args: ['sample', '--out', 'new/pkg'] }));
  });

  describe('AVTime-Bench: a bench root, its runs, dvc and the seed form of normalize', () => {
    let cwd: string;
    let stub: Stub;
    before(async () => {
      cwd = tmp('avtime');
      stub = await startStub((b) => ({ text: `From 00 to 10, ${String(b.messages?.[0]?.content?.[0]?.video_url?.url ?? '').slice(-12)}` }), ['tgt']);
    });
    after(async () => {
      await stub.close();
      fs.rmSync(cwd, { recursive: true, force: true });
    });

    it('avtime sample: refuses a folder that holds a bench root', () => twice(cwd, { verb: 'avtime sample', args: ['avtime', 'sample', '--out', 'bench'] }));
    it('avtime run: refuses an output root that holds a run; score says already scored', async () => {
      const [t, j] = [await freePortRange(2), await freePortRange(1)];
      const common = ['--bench-root', 'bench', '--run-id', 'r1'];
      await twice(cwd, {
        verb: 'avtime',
        args: [
          'avtime',
          'run',
          ...common,
          '--target-model',
          'Qwen/Qwen3-Omni-30B-A3B-Instruct',
          '--judge-model',
          'Qwen/Qwen3.6-27B',
          ...DEMO_GPU_LAYOUT,
          '--target-base-port',
          String(t),
          '--judge-base-port',
          String(j),
        ],
        check: (r) => assert.match(r.second.err, /already exists and is not empty: a run's artifacts are immutable/),
      });
      assert.ok(fs.existsSync(path.join(cwd, 'outputs', 'avtime-bench', 'r1', 'eval')), 'the output root lands under the cwd');
      // Their status file (.fpsweep/avtime-status.json) says the stage ran; the artifacts stay as they were.
      const status = /(^|\/)\.fpsweep\/avtime-status\.json$/;
      for (const stage of ['inputs', 'normalize', 'score']) {
        const before = contents(cwd, status);
        const r = await typed(cwd, ['avtime', stage, ...common]);
        assert.equal(r.code, 0, r.err);
        assert.match(r.out + r.err, /already/);
        assert.deepEqual(changes(before, contents(cwd, status)), [], stage);
      }
    });
    it('avtime dvc: resumes; no id asked or written twice', async () => {
      const raw = () => lines(path.join(cwd, 'dvc', 'raw_predictions.jsonl')).map((l) => JSON.parse(l).id as string);
      await twice(cwd, {
        verb: 'avtime dvc',
        args: [
          'avtime',
          'dvc',
          '--jsonl',
          'bench/target_inputs.jsonl',
          '--output-dir',
          'dvc',
          '--model-name',
          'tgt',
          '--bench-root',
          'bench',
          '--base-url',
          stub.url,
        ],
        check: () => {
          const ids = raw();
          assert.equal(new Set(ids).size, ids.length, 'an id written twice');
          assert.equal(ids.length, lines(path.join(cwd, 'bench', 'target_inputs.jsonl')).length);
        },
      });
      assert.equal(stub.bodies.length, raw().length, 'the second run asked nothing');
    });
    it('avtime normalize --raw: refuses its own outputs (immutable); relative outputs land where they name', () =>
      twice(cwd, {
        verb: 'avtime normalize --raw',
        args: [
          'avtime',
          'normalize',
          '--target-inputs',
          'bench/target_inputs.jsonl',
          '--raw',
          'dvc/raw_predictions.jsonl',
          '--output',
          'norm/predictions.jsonl',
          '--failures',
          'norm/prediction_failures.jsonl',
          '--report',
          'norm/prediction_report.json',
          '--model-id',
          'tgt',
          '--protocol',
          'longvale_train_dvc_v1',
          '--decoding-json',
          '{"temperature":0}',
        ],
        check: () => {
          assert.ok(fs.existsSync(path.join(cwd, 'norm', 'predictions.jsonl')));
          assert.ok(!fs.existsSync(path.join(cwd, 'norm', 'norm')), 'doubled: norm/norm/');
        },
      }));
  });

  describe('AVTime training data: split, the builders, train --dry-run', () => {
    let cwd: string;
    before(() => {
      const corpus = makeCorpus(60);
      cwd = fs.realpathSync(corpus.dir);
    });
    after(() => fs.rmSync(cwd, { recursive: true, force: true }));

    it('avtime split: refuses its own output root', () =>
      twice(cwd, {
        verb: 'avtime split',
        args: ['avtime', 'split', '--source', 'all.jsonl', '--derive-test-ids', '--test-size', '10', '--expected-rows', '0', '--output-root', 'outputs/split'],
      }));
    it('avtime build-sft: refuses its own outputs', () =>
      twice(cwd, {
        verb: 'avtime build-sft',
        args: [
          'avtime',
          'build-sft',
          '--avtime-jsonl',
          'outputs/split/train.jsonl',
          '--bench-root',
          'bench',
          '--output-jsonl',
          'data/sft/train.jsonl',
          '--report-json',
          'data/sft/report.json',
        ],
      }));
    it('avtime build-grpo: refuses its own outputs', () =>
      twice(cwd, {
        verb: 'avtime build-grpo',
        args: [
          'avtime',
          'build-grpo',
          '--input-jsonl',
          'data/sft/train.jsonl',
          '--output-jsonl',
          'data/grpo/train.jsonl',
          '--report-json',
          'data/grpo/report.json',
        ],
      }));
    for (const k of ['sft', 'grpo'])
      it(`avtime train ${k} --dry-run: reads only`, () =>
        twice(cwd, {
          verb: `avtime train ${k}`,
          args: ['avtime', 'train', k, '--dry-run', '--model', 'ckpt/Qwen3-Omni', '--dataset', `data/${k}/train.jsonl`],
        }));
  });

  describe('the data path: cut-sample, cut, caption-sample, caption', () => {
    let cwd: string;
    before(() => (cwd = tmp('data')));
    after(() => fs.rmSync(cwd, { recursive: true, force: true }));

    it('avtime cut-sample: says it is done (kept)', () => twice(cwd, { verb: 'avtime cut-sample', args: ['avtime', 'cut-sample', '--out', 'in/src'] }));
    it('avtime cut: resumes; every video done before', () =>
      twice(cwd, {
        verb: 'avtime cut',
        args: ['avtime', 'cut', '--input-root', 'in/src', '--output-root', 'out/clips', '--cutter', 'builtin'],
        volatile: /^out\/clips\/\.fpsweep-cut(\/|$)/,
        check: (t) => assert.match(t.second.out + t.second.err, /4 videos selected, 4 done before, 0 to cut/),
      }));
    it('avtime caption-sample: says it is done (kept)', () =>
      twice(cwd, { verb: 'avtime caption-sample', args: ['avtime', 'caption-sample', '--out', 'in/videos'] }));
    it('avtime caption: resumes; the done videos are not asked again', async () => {
      const port = String(await freePortRange(1));
      await twice(cwd, {
        verb: 'avtime caption',
        args: ['avtime', 'caption', 'in/videos', '--model-path', 'models/Qwen3-Omni-30B-A3B-Thinking', '--gpus', '0', '--base-port', port],
        code: 1, // the sample's invalid video directory fails, on purpose
        volatile: /^in\/videos\/\.fpsweep-caption(\/|$)/,
        check: (t) => {
          assert.match(t.first.out + t.first.err, /caption: 4 done, 1 failed, 0 pending/);
          assert.match(t.second.out + t.second.err, /5 videos selected, 4 done before, 1 to caption/);
        },
      });
    });
  });

  // A describe of its own, last: mocha runs a describe's own tests before its nested describes.
  describe('the whole registry', () => {
    it('every verb was run twice here (or where rerunCases.ts says)', () => {
      const missing = Object.keys(RERUN_FORM_OF).filter((v) => !ran.has(v) && !RERUN_TESTED_ELSEWHERE[v]);
      assert.deepEqual(missing, []);
    });
  });
});
