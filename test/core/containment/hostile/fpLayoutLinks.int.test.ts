// Issue 42, point 5: every containment refusal is exit 2 without a stack trace. Generated from the FP run type's
// layout module (PackageLayout): each of its paths is either written by a verb, and then gets a link planted at it
// (a file link to a file outside, a folder link to a folder outside) before that verb runs, which must end with
// exit 2 naming the link, no stack trace and nothing outside changed; or it is an input the verbs only read, said
// here with why. A path added to the layout and not listed here fails the first test, so the list stays whole.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS } from '../../protocols/fp/sample/fixture';
import { FAKE_VLLM, freePortRange, startStandin, withEnv, type Standin } from '../../protocols/fp/sweep/helpers';
import { PackageLayout } from '../../../../src/core/protocols/fp/package/layout';
import { runSweep } from '../../../../src/core/protocols/fp/sweep/sweep';
import { defaultSweepDeps } from '../../../../src/core/protocols/fp/sweep/adapters';
import { runOptionsSchema } from '../../../../src/core/protocols/fp/sweep/runOptions';
import { exitFor } from '../../../../src/core/errors';
import { escaped, hostileDir, removeHostileDirs, snapshot } from './hostileFiles';

const NO_STACK = /\n\s+at \S/;
const BENCH = 'MVBench';
const COND = 'v_8_s224';

type Verb = 'run' | 'launch' | 'report';
/** A path a verb writes: planted as a link of `kind`, then `verb` runs (`prepare` sets the package up for it first). */
interface Written {
  at: (l: PackageLayout) => string;
  kind: 'file' | 'dir';
  verb: Verb;
  prepare?: (l: PackageLayout) => void;
  /** Written whole (a temp renamed over it): the link is replaced by our file, never written through. */
  replaced?: true;
}

/** Every member of PackageLayout: written (planted below) or read only (why). */
const LAYOUT: Record<string, Written | { readOnly: string }> = {
  root: { readOnly: 'the package root itself: the user names it, every check starts there' },
  samplesDir: { readOnly: 'items: an input, read only (bounded parsing)' },
  samplesFile: { readOnly: 'items: an input, read only' },
  scopeSummary: { readOnly: 'an input, read only' },
  manifest: { readOnly: 'an input, read only' },
  storeDir: { readOnly: 'written by prepare only (test/core/containment/hostile/prepareLinks.int.test.ts); the run reads videos' },
  videoDir: { readOnly: 'written by prepare only; read by the run' },
  videoFile: { readOnly: 'read by the run (ffmpeg); written by prepare only' },
  metaFile: { readOnly: 'read by the run (bounded parsing); written by prepare only' },
  videosDir: { readOnly: 'shards: an input, read only' },
  videosManifest: { readOnly: 'an input, read only' },
  shardFile: { readOnly: 'shards: an input, read only (sha256 checked)' },
  resultsDir: { at: (l) => l.resultsDir, kind: 'dir', verb: 'run' },
  resultsCsv: { at: (l) => l.resultsCsv, kind: 'file', verb: 'run' },
  resultsCsvTorn: {
    at: (l) => l.resultsCsvTorn,
    kind: 'file',
    verb: 'run',
    prepare: (l) => fs.appendFileSync(l.resultsCsv, 'MVBench,torn'), // a torn last line: moved to .torn at start
  },
  rawDir: { at: (l) => l.rawDir(COND), kind: 'dir', verb: 'run' },
  rawFile: { at: (l) => l.rawFile(COND, BENCH), kind: 'file', verb: 'run' },
  dataLogsDir: { at: (l) => l.dataLogsDir, kind: 'dir', verb: 'run' },
  timingLog: { at: (l) => l.timingLog, kind: 'file', verb: 'run' },
  failuresLog: { at: (l) => l.failuresLog, kind: 'file', verb: 'run' },
  logsDir: { at: (l) => l.logsDir, kind: 'dir', verb: 'run' },
  vllmLog: { at: (l) => l.vllmLog(0), kind: 'file', verb: 'launch' },
  runnerLog: { at: (l) => l.runnerLog, kind: 'file', verb: 'run' },
  launchParams: { at: (l) => l.launchParams, kind: 'file', verb: 'launch' },
  stateDir: { at: (l) => l.stateDir, kind: 'dir', verb: 'run' },
  lockFile: { at: (l) => l.lockFile, kind: 'file', verb: 'run' },
  statusFile: { at: (l) => l.statusFile, kind: 'file', verb: 'run', replaced: true },
  hostCpuRecord: { at: (l) => l.hostCpuRecord, kind: 'file', verb: 'run' },
  framesPathsRecord: { at: (l) => l.framesPathsRecord, kind: 'file', verb: 'run' },
  frameStoreDir: { at: (l) => l.frameStoreDir, kind: 'dir', verb: 'run' },
  reportsDir: { at: (l) => l.reportsDir, kind: 'dir', verb: 'report' },
};

function members(): string[] {
  const proto = PackageLayout.prototype as unknown as Record<string, unknown>;
  const own = Object.getOwnPropertyNames(proto).filter((n) => n !== 'constructor');
  return [...own, ...Object.keys(new PackageLayout('/x'))].sort();
}

describe('hostile FP package: a link at every path the verbs write (issue 42, point 5, from PackageLayout)', function () {
  this.timeout(600_000);
  let server: Standin;
  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    await getSamplePackage();
    server = await startStandin();
  });
  after(async () => {
    await server?.stop();
    removeHostileDirs();
  });

  it('lists every member of PackageLayout, each written (planted below) or read only with why', () => {
    assert.deepEqual(members(), Object.keys(LAYOUT).sort());
  });

  for (const [name, entry] of Object.entries(LAYOUT)) {
    if ('readOnly' in entry) continue;
    const end = entry.replaced ? 'the link replaced by our file' : 'exit 2 naming it, no stack trace';
    it(`${name} as a ${entry.kind} link outside, then \`${entry.verb}\`: ${end}, nothing outside changed`, async () => {
      const pkg = await copySamplePackage();
      const layout = new PackageLayout(pkg.root);
      const outside = hostileDir('fp-hostile-layout-');
      fs.writeFileSync(path.join(outside, 'victim'), 'the outside file\n');
      entry.prepare?.(layout);
      const before = snapshot(outside);
      const link = entry.at(layout);
      fs.mkdirSync(path.dirname(link), { recursive: true });
      fs.rmSync(link, { recursive: true, force: true });
      fs.symlinkSync(entry.kind === 'file' ? path.join(outside, 'victim') : outside, link);

      let r: { code: number; out: string; err: string };
      if (entry.verb === 'report') r = await runCli(['report', '--package', pkg.root]);
      else if (entry.verb === 'run') r = await runCli(['run', '--package', pkg.root, '--bench', BENCH, '--conds', COND, '--endpoints', server.url]);
      else {
        // Launched servers (the stand-in as vLLM) on free ports: the run as the CLI runs it, its end as the CLI ends.
        const opts = { package: pkg.root, benchmarks: [BENCH], conditions: [COND], ngpu: 1, basePort: await freePortRange(1), vllmBin: FAKE_VLLM };
        r = await withEnv({ VLLM_BIN: FAKE_VLLM }, () => runSweep(runOptionsSchema.parse(opts), defaultSweepDeps)).then(
          (res) => ({ code: res.exitCode, out: res.summary, err: '' }),
          (err: unknown) => ({ code: exitFor(err).code, out: '', err: exitFor(err).text }),
        );
      }
      if (entry.replaced) {
        assert.equal(r.code, 0, r.out + r.err);
        assert.ok(fs.lstatSync(link).isFile(), 'the link replaced by our own file');
        assert.deepEqual(snapshot(outside), before, 'nothing outside changed');
        return;
      }
      assert.equal(r.code, 2, r.out + r.err);
      assert.match(r.out + r.err, new RegExp(`${escaped(link)}: is a symbolic link`));
      assert.doesNotMatch(r.out + r.err, NO_STACK);
      assert.deepEqual(snapshot(outside), before, 'nothing outside changed');
    });
  }
});
