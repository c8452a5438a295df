// Where the GPU frame helpers run (frames/gpu/helperGpus.ts): the servers' GPUs, GPU_HELPERS_PER_GPU on each.
import { strict as assert } from 'node:assert';
import { GPU_HELPERS_PER_GPU, gpuHelperCount, gpuHelperJobs, helperGpus } from '../../../../../src/core/protocols/fp/frames/gpu/helperGpus';

describe('fp/frames/gpu: the GPU frame helpers over the GPUs', () => {
  const smi = (ids: number[] | null) => () => Promise.resolve(ids);

  it("takes nvidia-smi's GPUs, cut to NGPU as the servers are", async () => {
    assert.deepEqual(await helperGpus({}, undefined, smi([0, 1, 2, 3])), ['0', '1', '2', '3']);
    assert.deepEqual(await helperGpus({}, 2, smi([0, 1, 2, 3])), ['0', '1']);
    assert.deepEqual(await helperGpus({}, undefined, smi(null)), []);
  });

  it("takes CUDA_VISIBLE_DEVICES' entries as given when set (CUDA's ids, not nvidia-smi's positions)", async () => {
    assert.deepEqual(await helperGpus({ CUDA_VISIBLE_DEVICES: '2,3' }, undefined, smi([0, 1, 2, 3])), ['2', '3']);
    assert.deepEqual(await helperGpus({ CUDA_VISIBLE_DEVICES: '2,3' }, 1, smi([0, 1, 2, 3])), ['2']);
  });

  it('runs GPU_HELPERS_PER_GPU on each GPU unless --decode-workers says how many', () => {
    assert.equal(GPU_HELPERS_PER_GPU, 4);
    assert.equal(gpuHelperCount(['0', '1', '2', '3']), 16);
    assert.equal(gpuHelperCount([]), 4);
    assert.equal(gpuHelperCount(['0', '1'], 3), 3);
  });

  it('one helper process takes GPU_HELPERS_PER_GPU jobs on its threads unless FP_GPU_HELPER_JOBS says otherwise', () => {
    assert.equal(gpuHelperJobs({}), GPU_HELPERS_PER_GPU);
    assert.equal(gpuHelperJobs({ FP_GPU_HELPER_JOBS: '1' }), 1);
    assert.equal(gpuHelperJobs({ FP_GPU_HELPER_JOBS: '0' }), GPU_HELPERS_PER_GPU);
    assert.equal(gpuHelperJobs({ FP_GPU_HELPER_JOBS: 'x' }), GPU_HELPERS_PER_GPU);
  });
});
