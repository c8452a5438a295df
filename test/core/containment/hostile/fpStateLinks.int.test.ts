// Issue 42, attack 6: our own state files in an FP package planted as links to files outside (`logs/runner.log`,
// `data/logs/p1_timing.jsonl`, a raw record file). docs/SECURITY.md promises a refusal with the link's path, exit 2
// and never a stack trace (they were refused with exit 1 and a 7-14-frame stack); the outside file is unchanged.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS } from '../../protocols/fp/sample/fixture';
import { startStandin, type Standin } from '../../protocols/fp/sweep/helpers';
import { PackageLayout } from '../../../../src/core/protocols/fp/package/layout';
import { escaped, hostileDir, removeHostileDirs, snapshot } from './hostileFiles';

const NO_STACK = /\n\s+at \S/;

const PLANTED: Array<[string, (l: PackageLayout) => string]> = [
  ['logs/runner.log', (l) => l.runnerLog],
  ['data/logs/p1_timing.jsonl', (l) => l.timingLog],
  ['a raw record file', (l) => l.rawFile('v_8_s224', 'MVBench')],
];

describe('hostile FP package: our state files planted as links (issue 42, attack 6)', function () {
  this.timeout(180_000);
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

  for (const [what, at] of PLANTED) {
    it(`${what} as a link outside: exit 2 naming it, no stack trace, the outside file unchanged`, async () => {
      const pkg = await copySamplePackage();
      const layout = new PackageLayout(pkg.root);
      const outside = hostileDir('fp-hostile-state-');
      fs.writeFileSync(path.join(outside, 'victim'), 'the outside file\n');
      const before = snapshot(outside);
      const link = at(layout);
      fs.mkdirSync(path.dirname(link), { recursive: true });
      fs.rmSync(link, { force: true });
      fs.symlinkSync(path.join(outside, 'victim'), link);

      const r = await runCli(['run', '--package', pkg.root, '--bench', 'MVBench', '--conds', 'v_8_s224', '--endpoints', server.url]);
      assert.equal(r.code, 2, r.out + r.err);
      assert.match(r.out + r.err, new RegExp(`${escaped(link)}: is a symbolic link`));
      assert.doesNotMatch(r.out + r.err, NO_STACK);
      assert.deepEqual(snapshot(outside), before, 'the outside file unchanged');
      assert.equal(fs.readlinkSync(link), path.join(outside, 'victim'), 'the link left for the user to see');
    });
  }
});
