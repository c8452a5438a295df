// One server-state type from the launcher to the tree: the status file stores its words as they are,
// and a status file written before it (the same four words) still reads.
import { strict as assert } from 'node:assert';
import { SERVER_STATES, serverStateSchema } from '../../../src/core/serving/serverState';
import { serverStatusSchema } from '../../../src/core/runner/serverStatus';

describe('serving: server state', () => {
  it('the status file stores the same four words the launcher emits, and nothing else', () => {
    assert.deepEqual([...SERVER_STATES], ['starting', 'up', 'restarting', 'down']);
    assert.deepEqual(serverStatusSchema.shape.state.options, serverStateSchema.options);
    assert.equal(
      serverStatusSchema.safeParse({ index: 0, endpoint: 'u', state: 'failed', running: null, waiting: null, restarts: 3, message: null }).success,
      false,
    );
  });

  it('an old status file server line reads unchanged', () => {
    const old = {
      index: 1,
      endpoint: 'http://127.0.0.1:8012',
      state: 'down',
      running: null,
      waiting: null,
      restarts: 3,
      message: 'restart budget (3) used up, the server stays down',
    };
    assert.deepEqual(serverStatusSchema.parse(old), old);
  });
});
