// file:// frames wherever the server can read them (issue 17): launched servers always; --endpoints servers when
// the user says they share this host's frame store (--endpoint-frames file); data: URLs otherwise.
import { strict as assert } from 'node:assert';
import { parseRunArgs } from '../../../../../src/cli/verbs/run';
import { framesAsFileUrls } from '../../../../../src/core/protocols/fp/sweep/adapters';

describe('fp: how the frames travel', () => {
  it('launched servers read file:// URLs; --endpoints get data: URLs unless --endpoint-frames file', () => {
    assert.equal(parseRunArgs(['--package', '/tmp/x']).options.endpointFrames, 'data');
    const viaFlag = parseRunArgs(['--package', '/tmp/x', '--endpoints', 'http://127.0.0.1:8011', '--endpoint-frames', 'file']).options;
    assert.equal(viaFlag.endpointFrames, 'file');
    assert.equal(framesAsFileUrls(viaFlag), true);
    assert.equal(framesAsFileUrls(parseRunArgs(['--package', '/tmp/x', '--endpoints', 'http://10.0.0.5:8011']).options), false);
    assert.equal(framesAsFileUrls(parseRunArgs(['--package', '/tmp/x']).options), true);
    assert.throws(() => parseRunArgs(['--package', '/tmp/x', '--endpoint-frames', 'ftp']), /endpointFrames/);
  });
});
