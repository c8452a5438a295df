// The sweep's fail-fast monitor keeps Frames × Pixels's words for the decode rule (the stop reason in the status
// file and the report say what they said before the rule's words moved out of the engine).
import { strict as assert } from 'node:assert';
import { fpFailFast } from '../../../../../src/core/protocols/fp/sweep/fpFailFast';

describe('fp sweep: fail-fast in the sweep words', () => {
  it('the first M videos failing to decode trip the decode rule with the same detail as before', () => {
    const m = fpFailFast({ failSameInARow: 20, failFirstRequests: 40, failFirstVideos: 2 });
    assert.equal(m.prepared({ ok: false, message: 'ffmpeg exited 1' }), null);
    const t = m.prepared({ ok: false, message: 'ffmpeg exited 1' });
    assert.deepEqual(
      { rule: t?.rule, kind: t?.kind, detail: t?.detail },
      { rule: 'decode', kind: 'decode', detail: 'the first 2 videos all failed to decode and none decoded (the rule: the first 2)' },
    );
  });
});
