// Issue 42 for the verbs that make a new folder, the `sample` verbs: `--out` given as a link (to an empty folder
// outside, or dangling) is refused before anything is made: exit 2 naming it, no stack trace, nothing written outside.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { escaped, hostileDir, removeHostileDirs, snapshot } from './hostileFiles';
import { NO_STACK, plantLink, type LinkKind } from './layoutLinks';

describe('hostile `sample` verbs: --out as a link (issue 42)', function () {
  this.timeout(60_000);
  after(() => removeHostileDirs());
  for (const verb of [['sample'], ['avtime', 'sample'], ['avtime', 'caption-sample'], ['avtime', 'cut-sample']])
    for (const kind of ['dir', 'dangling'] as const satisfies readonly LinkKind[])
      it(`fpsweep ${verb.join(' ')} --out as a ${kind === 'dir' ? 'link to an empty folder outside' : 'dangling link'}: exit 2, nothing outside`, async () => {
        const out = path.join(hostileDir('sample-out-'), 'out');
        const planted = plantLink(out, kind);
        // An empty folder outside: the link's target holds nothing a verb could take for its own earlier output.
        fs.rmSync(path.join(planted.outside, 'victim'));
        const before = snapshot(planted.outside);
        const r = await runCli([...verb, '--out', out]);
        assert.equal(r.code, 2, r.out + r.err);
        assert.match(r.err, new RegExp(`${escaped(out)}: is a symbolic link`));
        assert.doesNotMatch(r.out + r.err, NO_STACK);
        assert.deepEqual(snapshot(planted.outside), before, 'nothing written outside');
      });
});
