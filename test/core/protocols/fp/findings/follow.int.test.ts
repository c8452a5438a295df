// `fpsweep findings --follow`'s reader (issue 24, defect B): on a package whose results CSV grows, each read
// gives what `fpsweep findings --json` computes from the files as they are then, and a read with no input changed
// returns the last answer without computing again.
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import { copySamplePackage, SAMPLE_TIMEOUT_MS } from '../sample/fixture';
import { FindingsFollower, packageFindings } from '../../../../../src/core/protocols/fp/findings';
import { meanFramesByCell } from '../../../../../src/core/protocols/fp/findings/charts/framesSent';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';

describe('findings --follow: incremental reads of a growing package', function () {
  this.timeout(SAMPLE_TIMEOUT_MS);

  it('matches the one-shot findings after each append, and computes nothing when nothing changed', async () => {
    const { root } = await copySamplePackage();
    const csv = new PackageLayout(root).resultsCsv;
    const lines = (await fs.readFile(csv, 'utf8')).split('\n').filter(Boolean);
    assert.ok(lines.length > 4, `the sample's CSV has ${lines.length} lines`);
    const half = Math.ceil(lines.length / 2);
    await fs.writeFile(csv, lines.slice(0, half).join('\n') + '\n');
    const opts = { flips: true };
    const follower = new FindingsFollower(root, opts);

    const first = await follower.read();
    assert.deepEqual(first.findings, await packageFindings(root, opts));
    assert.deepEqual(first.framesSent, await meanFramesByCell(csv));
    assert.equal(await follower.read(), first, 'a read with no input changed is the last answer itself');

    await fs.appendFile(csv, lines.slice(half).join('\n') + '\n');
    const second = await follower.read();
    assert.notEqual(second.stamp, first.stamp);
    assert.deepEqual(second.findings, await packageFindings(root, opts));
    assert.deepEqual(second.framesSent, await meanFramesByCell(csv));
    assert.notDeepEqual(second.framesSent, first.framesSent);
  });
});
