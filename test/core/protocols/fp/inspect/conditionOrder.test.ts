import { strict as assert } from 'node:assert';
import { conditionOrder } from '../../../../../src/core/protocols/fp/inspect';
import { DEFAULT_CONDITIONS } from '../../../../../src/core/protocols/fp/rules';

describe('item inspector: the order of conditions', () => {
  it('text only, then frame counts (fewer, then smaller frames, storage last), then frame rates', () => {
    assert.deepEqual([...DEFAULT_CONDITIONS].sort(conditionOrder), [
      'v_blind',
      'v_1',
      'v_8_s224',
      'v_32_s168',
      'v_32_s224',
      'v_32_s336',
      'v_32_s448',
      'v_32',
      'v_128_s224',
      'v_fps0.25_s224',
      'v_fps0.5_s224',
      'v_fps1_s224',
      'v_fps2_s224',
    ]);
  });
});
