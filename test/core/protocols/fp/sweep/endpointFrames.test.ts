// file:// frames wherever the server can read them (issue 17): launched servers always; --endpoints servers when
// the user says they share this host's frame store (--endpoint-frames file); data: URLs otherwise.
import { strict as assert } from 'node:assert';
import { parseRunArgs } from '../../../../../src/cli/verbs/run';
import { framesAsFileUrls } from '../../../../../src/core/protocols/fp/sweep/adapters';
import { tinyPackage } from '../../../../helpers/tinyPackage';

/** --package must be an existing run package (the flag layer checks it). */
const PKG = tinyPackage();

describe('fp: how the frames travel', () => {
  it('launched servers read file:// URLs; --endpoints get data: URLs unless --endpoint-frames file', () => {
    assert.equal(parseRunArgs(['--package', PKG]).options.endpointFrames, 'data');
    const viaFlag = parseRunArgs(['--package', PKG, '--endpoints', 'http://127.0.0.1:8011', '--endpoint-frames', 'file']).options;
    assert.equal(viaFlag.endpointFrames, 'file');
    assert.equal(framesAsFileUrls(viaFlag), true);
    assert.equal(framesAsFileUrls(parseRunArgs(['--package', PKG, '--endpoints', 'http://10.0.0.5:8011']).options), false);
    assert.equal(framesAsFileUrls(parseRunArgs(['--package', PKG]).options), true);
    assert.throws(
      () => parseRunArgs(['--package', PKG, '--endpoint-frames', 'ftp']),
      /--endpoint-frames \(or ENDPOINT_FRAMES\) must be one of file, data, got 'ftp'/,
    );
  });
});
