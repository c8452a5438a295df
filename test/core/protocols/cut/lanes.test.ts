// Jobs at once and their GPUs: --jobs-per-gpu × visible GPUs, pinned round-robin, capped by --max-jobs.
import { strict as assert } from 'node:assert';
import { cutLanes, visibleGpus } from '../../../../src/core/protocols/cut/lanes';

describe('cut: lanes', () => {
  it('visible GPUs: CUDA_VISIBLE_DEVICES as given (up to an invalid id), else nvidia-smi', () => {
    assert.deepEqual(visibleGpus({ CUDA_VISIBLE_DEVICES: '2, 3' }, [0, 1, 2, 3]), ['2', '3']);
    assert.deepEqual(visibleGpus({ CUDA_VISIBLE_DEVICES: '1,-1,2' }, [0, 1, 2]), ['1']);
    assert.deepEqual(visibleGpus({ CUDA_VISIBLE_DEVICES: '' }, [0, 1]), []);
    assert.deepEqual(visibleGpus({}, [0, 1]), ['0', '1']);
  });

  it('jobs per GPU × GPUs, round-robin, capped; with no GPU: --max-jobs, else the cores', () => {
    assert.deepEqual(
      cutLanes(['0', '1'], 2, null, 16).map((l) => l.gpu),
      ['0', '1', '0', '1'],
    );
    assert.deepEqual(
      cutLanes(['0', '1', '2'], 4, 2, 16).map((l) => l.gpu),
      ['0', '1'],
    );
    assert.deepEqual(cutLanes([], 4, null, 6), Array(6).fill({ gpu: null }));
    assert.deepEqual(cutLanes([], 4, 2, 6), Array(2).fill({ gpu: null }));
  });
});
