// `fpsweep findings --follow`'s reader (issue 24, defect B): on a package whose results CSV grows (a torn last
// line included), each read gives what `fpsweep findings --json` computes from the files as they are then, parsing
// only the appended lines, and a read with no input changed returns the last answer without computing again.
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

    // The rest, its last line torn (no newline yet): left out, as the one-shot read leaves it out.
    const rest = lines.slice(half).join('\n') + '\n';
    const cut = rest.length - Math.ceil(lines[lines.length - 1].length / 2) - 1;
    await fs.appendFile(csv, rest.slice(0, cut));
    const torn = await follower.read();
    assert.deepEqual(torn.findings, await packageFindings(root, opts));
    assert.equal(torn.findings.rows_read, lines.length - 2);
    await fs.appendFile(csv, rest.slice(cut));
    const second = await follower.read();
    assert.notEqual(second.stamp, first.stamp);
    assert.deepEqual(second.findings, await packageFindings(root, opts));
    assert.deepEqual(second.framesSent, await meanFramesByCell(csv));
    assert.notDeepEqual(second.framesSent, first.framesSent);
    assert.equal(second.findings.rows_read, lines.length - 1);
  });
});
