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
import { removeHostileDirs } from './hostileFiles';
import { assertRefused, plantLink } from './layoutLinks';

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
      const link = at(new PackageLayout(pkg.root));
      const planted = plantLink(link, 'file');
      const r = await runCli(['run', '--package', pkg.root, '--bench', 'MVBench', '--conds', 'v_8_s224', '--endpoints', server.url]);
      assertRefused(r, link, planted);
      assert.equal(fs.readlinkSync(link), path.join(planted.outside, 'victim'), 'the link left for the user to see');
    });
  }
});
