// The sweep's advice table (moved from the engine with its test): vLLM's messages in Frames × Pixels's terms.
import { strict as assert } from 'node:assert';
import { fpAdviseFailure } from '../../../../../src/core/protocols/fp/sweep/fpAdvice';

const SYMLINK_400 = (n: number) =>
  `The file path /mnt/nvme0/real/pkg/.fpsweep/frames/ab/${n}cdef0123/frame_${n}.jpg must be a subpath of ` +
  '`--allowed-local-media-path` /data/link/pkg/.fpsweep/frames. None';

describe('fp sweep: failure advice', () => {
  it('names the known vLLM messages and has a next step for any other', () => {
    assert.match(fpAdviseFailure(SYMLINK_400(3), 400).action, /realpath/);
    assert.match(fpAdviseFailure('Unauthorized', 401).action, /FPSWEEP_API_KEY/);
    assert.match(fpAdviseFailure('The model `Qwen/X` does not exist.', 404).action, /served-model-name/);
    assert.match(
      fpAdviseFailure('The decoder prompt (length 70000) is longer than the maximum model length of 32768.', 400, 'context').action,
      /max-model-len 65536/,
    );
    assert.match(fpAdviseFailure('ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:8011', null, 'server_down').meaning, /not running/);
    assert.match(fpAdviseFailure('whatever', null, 'decode').action, /ffmpeg/);
    assert.match(fpAdviseFailure('something new').action, /doctor/);
  });
});
